#!/usr/bin/env python3
"""Checks what dotnet-counters read from the sample (`collect --format json`): the registry's own
counter webapi.requests and histogram webapi.request.duration, under the registry's meter
(ScalableMetrics), for the requests sent while it listened (route /metrics).

usage: e2e-check-counters.py COUNTERS_JSON METER
Prints one "ok ..." or "FAIL ..." line per check; exits 1 if any failed.
"""
import json
import sys

path, meter = sys.argv[1], sys.argv[2]
with open(path, encoding="utf-8") as f:
    events = json.load(f).get("Events", [])

failures = 0


def check(ok, line):
    global failures
    print(("ok   " if ok else "FAIL ") + line)
    failures += 0 if ok else 1


ours = [e for e in events if e.get("provider") == meter]
names = sorted({e["name"] for e in ours})
check(bool(ours), f"dotnet-counters read {len(ours)} values of meter {meter}: {names}")

requests = [e for e in ours if e["name"].startswith("webapi.requests (") and "http.route=/metrics" in e.get("tags", "")]
check(any(e["value"] > 0 for e in requests),
      f"webapi.requests{{http.route=/metrics}}: {len(requests)} values, rates {[e['value'] for e in requests]}")

durations = [e for e in ours if e["name"].startswith("webapi.request.duration (") and "http.route=/metrics" in e.get("tags", "")]
percentiles = sorted({t for e in durations for t in e["tags"].split(",") if t.startswith("Percentile=")})
check(bool(durations) and all(e["value"] > 0 for e in durations) and "Percentile=50" in percentiles,
      f"webapi.request.duration{{http.route=/metrics}}: {len(durations)} values, {percentiles}, all positive")

sys.exit(1 if failures else 0)
