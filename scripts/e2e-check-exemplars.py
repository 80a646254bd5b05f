#!/usr/bin/env python3
"""Checks, through a real Prometheus server's exemplar API (started with
--enable-feature=exemplar-storage), the exemplars it scraped from samples/WebApi, run with
ScalableMetrics:Registry:ExemplarFilter=TraceBased while ab sent every /hello request with the same W3C
traceparent, sampled (flags 01): ASP.NET Core's request activity continues that trace, so every
measurement of a request is sampled.

    python3 scripts/e2e-check-exemplars.py PROMETHEUS_URL TRACE_ID

For the sample's counter webapi_requests_total and histogram webapi_request_duration_seconds, and
ASP.NET Core's own histogram http_server_request_duration_seconds (taken through the listener),
for route /hello: at least one exemplar stored, every one of trace TRACE_ID with a 16-hex-digit
span id; the counter's of value 1 (an increment); a bucket's at most its le. Waits (up to 30 s)
until they pass, then exits 0 when every check passes, 1 otherwise, printing one line per check.
"""
import re
import sys
import time

from prometheus_api import api, run_until_passed

PROMETHEUS, TRACE_ID = sys.argv[1], sys.argv[2]
SPAN_ID = re.compile(r"^[0-9a-f]{16}$")


def exemplars(promql):
    now = time.time()
    data = api(PROMETHEUS, "/api/v1/query_exemplars", query=promql, start=now - 900, end=now)
    return [(series["seriesLabels"], e) for series in data for e in series["exemplars"]]


def check(promql, value_ok, value_rule):
    found = exemplars(promql)
    problems = []
    if not found:
        problems.append("none stored")
    for labels, e in found:
        if e["labels"].get("trace_id") != TRACE_ID or not SPAN_ID.match(e["labels"].get("span_id", "")):
            problems.append(f"labels {e['labels']}")
        elif not value_ok(labels, float(e["value"])):
            problems.append(f"value {e['value']} on {labels} ({value_rule})")
    line = f"exemplars of {promql}: {len(found)}, trace {TRACE_ID}, {value_rule}"
    return not problems, line if not problems else f"exemplars of {promql}: " + "; ".join(problems[:3])


def run_checks():
    in_bucket = lambda labels, value: 0 < value <= float(labels["le"])
    checks = [check('webapi_requests_total{http_route="/hello"}', lambda _, v: v == 1, "value 1"),
              check('webapi_request_duration_seconds_bucket{http_route="/hello"}', in_bucket, "0 < value <= le"),
              check('http_server_request_duration_seconds_bucket{http_route="/hello"}', in_bucket, "0 < value <= le")]
    return all(ok for ok, _ in checks), checks


run_until_passed(run_checks, 30)
