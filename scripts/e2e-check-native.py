#!/usr/bin/env python3
"""Checks, through the HTTP API of a real Prometheus server started with
--enable-feature=native-histograms (it scrapes in the protobuf exposition), the native histogram
worker_item_number{work_kind="collatz"} of samples/Worker's job "worker": the worker records each
item's number, 1 to ITEMS, once.

    python3 scripts/e2e-check-native.py PROMETHEUS_URL SCOPE ITEMS

Checks that the stored series is a native histogram of count ITEMS and sum ITEMS (ITEMS + 1) / 2,
exactly; that Prometheus stored it at zero before the work (the worker waits before its first
item), so that rate() over the minute that ends at the first sample holding every item sees the
whole work as one increase; and that histogram_quantile(0.99, rate(worker_item_number[1m])) at
that moment is within the scale's relative error of the true 0.99 quantile of 1..ITEMS: between
q / base and q * base, base = 2^(2^-schema) the ratio of a stored bucket's bounds (Prometheus
interpolates inside the bucket that holds the quantile, whose bounds are within a factor base of
any value in it). Waits (up to 90 s: the worker may still be waiting or working) until the
values are exact, then exits 0 when every check passes, 1 otherwise, printing one line per check.
"""
import math
import sys
import time

from prometheus_api import api, query, run_until_passed, stored_labels

PROMETHEUS, SCOPE, ITEMS = sys.argv[1], sys.argv[2], int(sys.argv[3])
SERIES = 'worker_item_number{job="worker"}'
LABELS = {"otel_scope_name": SCOPE, "work_kind": "collatz"}
QUANTILE = 0.99


def true_quantile():
    # Prometheus' rank is q * count; the value of that rank among 1..ITEMS, rounded up.
    return math.ceil(QUANTILE * ITEMS)


def run_checks():
    checks = []
    results = [r for r in query(PROMETHEUS, SERIES) if stored_labels(r) == LABELS]
    if len(results) != 1 or "histogram" not in results[0]:
        return False, [(False, f"{SERIES}{LABELS}: no native histogram stored ({results})")]
    histogram = results[0]["histogram"][1]
    count, total = float(histogram["count"]), float(histogram["sum"])
    checks.append((count == ITEMS and total == ITEMS * (ITEMS + 1) / 2,
                   f"native histogram {SERIES}: count {count:.0f}, sum {total:.0f} (expected {ITEMS}, {ITEMS * (ITEMS + 1) // 2})"))
    buckets = histogram.get("buckets", [])
    # [boundary rule, lower, upper, count]; the zero bucket has lower <= 0 <= upper. Any other gives the base.
    ratios = [float(b[2]) / float(b[1]) for b in buckets if float(b[1]) > 0]
    if not ratios:
        return False, checks + [(False, "no positive bucket stored")]
    base = min(ratios)
    schema = round(-math.log2(math.log2(base)))
    checks.append((schema == 3, f"schema {schema} (base {base:.6f}; the instrument's scale is 3)"))

    # The first moment a sample held every item, and a sample at zero in the minute before it.
    now = time.time()
    points = api(PROMETHEUS, "/api/v1/query_range", query=f"histogram_count({SERIES})", start=now - 600, end=now, step=0.25)["result"]
    if len(points) != 1:
        return False, checks + [(False, f"histogram_count({SERIES}): {len(points)} series")]
    values = [(float(t), float(v)) for t, v in points[0]["values"]]
    done = next((t for t, v in values if v == ITEMS), None)
    if done is None:
        return False, checks + [(False, f"no sample holds all {ITEMS} items yet")]
    zero = [t for t, v in values if v == 0 and done - 59 < t < done]
    checks.append((bool(zero), f"a sample at zero in the minute before the first complete one ({len(zero)} points)"))

    promql = f"histogram_quantile({QUANTILE}, rate({SERIES}[1m]))"
    answer = [float(r["value"][1]) for r in api(PROMETHEUS, "/api/v1/query", query=promql, time=done)["result"]]
    expected = true_quantile()
    ok = len(answer) == 1 and expected / base <= answer[0] <= expected * base
    checks.append((ok, f"{promql} at {done:.3f} = {answer} (true {expected}; within a factor {base:.4f}: "
                       f"{expected / base:.0f} to {expected * base:.0f})"))
    return all(ok for ok, _ in checks), checks


run_until_passed(run_checks, 90)
