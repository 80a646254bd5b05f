"""Reads back, through VictoriaMetrics' Prometheus-compatible query API, what it scraped from the
sample and the worker: the /hello 200 count equal to the requests ApacheBench completed, the
/hello request duration histogram's _count too, and the worker's items: a second real scraper,
of another make than Prometheus, holding the exact values.

    python3 scripts/e2e-check-victoriametrics.py VICTORIAMETRICS_URL REQUESTS WORKER_ITEMS"""

import sys

from prometheus_api import query, run_until_passed

VICTORIAMETRICS, REQUESTS, ITEMS = sys.argv[1], sys.argv[2], sys.argv[3]

CHECKS = [
    ('webapi_requests_total{job="sample",http_route="/hello",http_response_status_code="200"}', REQUESTS),
    ('webapi_request_duration_seconds_count{job="sample",http_route="/hello"}', REQUESTS),
    ('worker_items_total{job="worker"}', ITEMS),
]


def run_checks():
    checks = []
    for promql, expected in CHECKS:
        result = query(VICTORIAMETRICS, promql)
        values = [r["value"][1] for r in result]
        ok = values == [expected]
        checks.append((ok, f"victoriametrics {promql} = {values}, expected [{expected}]"))
    return all(ok for ok, _ in checks), checks


# It scrapes every second; the last scrape after the load may take a few to be stored.
run_until_passed(run_checks, 60)
