#!/usr/bin/env python3
"""Checks, through a real Prometheus server's HTTP API, what it scraped from samples/Worker's
standalone scrape listener (job "worker"): the target up, the bound counter series
worker_items_total{work_kind="collatz"} exactly ITEMS (the worker did exactly that many items,
across one task per processor), and the histogram worker_item_steps with ITEMS in _count and in
le="+Inf", its buckets cumulative at the sample's boundaries (PartitionedWorkService.StepBoundaries).

    python3 scripts/e2e-check-worker.py PROMETHEUS_URL SCOPE ITEMS

Waits (up to 60 s: the worker may still be working) until the values are exact, then exits 0 when
every check passes, 1 otherwise, printing one line per check.
"""
import sys

from prometheus_api import query, run_until_passed, stored_labels

PROMETHEUS, SCOPE, ITEMS = sys.argv[1], sys.argv[2], sys.argv[3]
JOB = "worker"
LABELS = {"otel_scope_name": SCOPE, "work_kind": "collatz"}
# As exposed in OpenMetrics, which Prometheus asks for first: canonical le values ("10.0"), stored
# by Prometheus 2.x as the exposition spelled them.
STEP_LES = ["10.0", "25.0", "50.0", "100.0", "150.0", "200.0", "300.0", "500.0", "+Inf"]


def check_up():
    values = [r["value"][1] for r in query(PROMETHEUS, f'up{{job="{JOB}"}}')]
    return values == ["1"], f'up{{job="{JOB}"}} = {values} (expected ["1"])'


def check_series(name, value):
    found = [r["value"][1] for r in query(PROMETHEUS, f'{name}{{job="{JOB}"}}') if stored_labels(r) == LABELS]
    return found == [value], f"{name}{LABELS} = {found} (expected [{value!r}])"


def check_buckets():
    found = {}
    for result in query(PROMETHEUS, f'worker_item_steps_bucket{{job="{JOB}"}}'):
        stored = stored_labels(result)
        le = stored.pop("le", None)
        if stored == LABELS and le is not None:
            found[le] = result["value"][1]
    les = sorted(found, key=float)
    counts = [float(found[le]) for le in les]
    problems = []
    if les != STEP_LES:
        problems.append(f"le values {les} (expected {STEP_LES})")
    if any(later < earlier for earlier, later in zip(counts, counts[1:])):
        problems.append("buckets not cumulative")
    if found.get("+Inf") != ITEMS:
        problems.append(f'le="+Inf" = {found.get("+Inf")} (expected {ITEMS})')
    summary = f'worker_item_steps_bucket{LABELS}: {len(les)} buckets, cumulative, le="+Inf" = {ITEMS}'
    return not problems, summary if not problems else "worker_item_steps_bucket: " + "; ".join(problems)


def run_checks():
    checks = [check_up(),
              check_series("worker_items_total", ITEMS),
              check_series("worker_item_steps_count", ITEMS),
              check_buckets()]
    return all(ok for ok, _ in checks), checks


run_until_passed(run_checks, 60)
