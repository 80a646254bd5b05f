#!/usr/bin/env python3
"""Checks, through a real Prometheus server's HTTP API, the exact values of the sample's awkward
series (samples/WebApi/AwkwardSeries.cs; keep the two in step) and of the /hello request count.

    python3 scripts/e2e-check-prometheus.py PROMETHEUS_URL SCOPE HELLO_COUNT

Waits (up to 30 s) until Prometheus has scraped the values, then exits 0 when every one is
exact, 1 otherwise, printing one line per check. Labels are compared whole, as Prometheus stores
them (minus job and instance), so a label merged, renamed, dropped or added fails the check.
"""
import json
import sys
import time
import urllib.parse
import urllib.request

PROMETHEUS, SCOPE, HELLO = sys.argv[1], sys.argv[2], sys.argv[3]

# (metric name, labels other than otel_scope_name, job and instance, exact value as Prometheus prints it)
SERIES = [
    ("awkward_dotted_name_with_slash_total", {}, "11"),
    ("awkward_quotes_total", {"path": 'say "hi" \\ back\\slash'}, "12"),
    ("awkward_newline_total", {"note": "line1\nline2"}, "13"),
    ("awkward_unicode_total", {"citt_": "naïve ✓ 日本"}, "14"),
    ("awkward_empty_total", {"b": "x"}, "15"),
    ("awkward_status_int_total", {"code": "200"}, "16"),
    ("awkward_status_string_total", {"code": "200"}, "17"),
    ("awkward_sent_bytes_total", {"dir": "in"}, "18"),
    ("awkward_merged_total", {"code": "200"}, "21"),
    ("awkward_merged_total", {}, "15"),
    ("awkward_spellings_total", {"http_route": "/x"}, "120"),
    ("awkward_op_time_seconds_sum", {"db": "users"}, "0.5"),
    ("awkward_op_time_seconds_count", {"db": "users"}, "2"),
    ("awkward_overflow_total", {"otel_metric_overflow": "true"}, "50"),
    ("webapi_requests_total", {"http_route": "/hello", "http_response_status_code": "200"}, HELLO),
]

# (PromQL, exact value)
AGGREGATES = [
    ("count(awkward_overflow_total)", "2001"),
    ("count(awkward_merged_total)", "2"),
    ("count(awkward_spellings_total)", "1"),
    ("sum(awkward_overflow_total)", "2050"),
    ('count(awkward_overflow_total{otel_metric_overflow=""})', "2000"),
    ('count({__name__=~"awkward_.*",otel_scope_name!="%s"})' % SCOPE, None),  # no series outside the scope: empty result
]


def query(promql):
    url = PROMETHEUS + "/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    with urllib.request.urlopen(url, timeout=5) as response:
        body = json.load(response)
    if body.get("status") != "success":
        raise RuntimeError(f"query {promql!r} failed: {body}")
    return body["data"]["result"]


def check_series(name, labels, value):
    expected = dict(labels, otel_scope_name=SCOPE)
    found = []
    for result in query(name):
        stored = {k: v for k, v in result["metric"].items() if k not in ("__name__", "job", "instance")}
        if stored == expected:
            found.append(result["value"][1])
    if len(found) != 1:
        return False, f"{name}{expected}: {len(found)} series with exactly these labels"
    return found[0] == value, f"{name}{expected} = {found[0]} (expected {value})"


def check_aggregate(promql, value):
    result = query(promql)
    if value is None:
        return not result, f"{promql}: {'empty' if not result else result}"
    got = result[0]["value"][1] if len(result) == 1 else None
    return got == value, f"{promql} = {got} (expected {value})"


def run_checks():
    checks = [check_series(*series) for series in SERIES] + [check_aggregate(*aggregate) for aggregate in AGGREGATES]
    return all(ok for ok, _ in checks), checks


deadline = time.monotonic() + 30
while True:
    try:
        passed, checks = run_checks()
    except (OSError, RuntimeError) as error:
        passed, checks = False, [(False, f"query failed: {error}")]
    if passed or time.monotonic() > deadline:
        break
    time.sleep(0.5)

for ok, line in checks:
    print(("ok    " if ok else "FAIL  ") + line)
sys.exit(0 if passed else 1)
