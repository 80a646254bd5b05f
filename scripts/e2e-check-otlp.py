#!/usr/bin/env python3
"""Checks what the OTLP receivers of scripts/e2e.sh stored (scripts/e2e-otlp-receiver.py), decoding
every body with classes protoc generated from the official opentelemetry-proto files:

- the sample's exports (cumulative, over gRPC): every request decodes; every Sum and Histogram is
  cumulative; across exports, in arrival order, no monotonic sum's value and no histogram's count
  of any series ever goes down (System.Runtime's callback readings left out, see CALLBACK_SCOPES);
  in the last export (the one made when the sample stopped), ASP.NET Core's own
  http.server.request.duration (scope Microsoft.AspNetCore.Hosting, through AddMeter) and the
  sample's webapi.request.duration have, for http.route=/hello, a count of exactly REQUESTS;
- the worker's exports (delta, gzip, over HTTP): every request came gzipped and decodes; its sums and
  histograms are delta; the deltas of worker.items (work.kind=collatz) and the counts of
  worker.item.steps add up to exactly ITEMS over all exports.

    python3 scripts/e2e-check-otlp.py GENERATED_DIR SAMPLE_DIR WORKER_DIR REQUESTS ITEMS

Exits 0 when every check passes, 1 otherwise, printing one line per check.
"""
import os
import sys

GENERATED, SAMPLE_DIR, WORKER_DIR, REQUESTS, ITEMS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
sys.path.insert(0, GENERATED)
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2  # noqa: E402
from opentelemetry.proto.metrics.v1 import metrics_pb2  # noqa: E402

# System.Runtime's instruments are all observable: each export carries what the runtime's callback
# read, not a count the registry aggregated, and the runtime publishes two values that go down
# (dotnet.thread_pool.thread.count, dotnet.thread_pool.queue.length) with CreateObservableCounter.
# Their monotonic sums go down in a faithful export, so that scope is left out of the "never goes
# down" check; every aggregated series (the sample's, ASP.NET Core's, Kestrel's) stays in it.
CALLBACK_SCOPES = {"System.Runtime"}

CUMULATIVE = metrics_pb2.AGGREGATION_TEMPORALITY_CUMULATIVE
DELTA = metrics_pb2.AGGREGATION_TEMPORALITY_DELTA
failures = 0


def check(passed, text):
    global failures
    print(("ok   " if passed else "FAIL ") + text)
    if not passed:
        failures += 1


def exports(directory):
    names = sorted(n for n in os.listdir(directory) if n.endswith(".pb"))
    requests = []
    for name in names:
        request = metrics_service_pb2.ExportMetricsServiceRequest()
        with open(os.path.join(directory, name), "rb") as f:
            request.ParseFromString(f.read())
        requests.append((name, request))
    return requests


def metrics(request):
    for resource in request.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                yield scope.scope.name, metric


def attributes(point):
    return tuple(sorted((a.key, a.value.WhichOneof("value") and getattr(a.value, a.value.WhichOneof("value"))) for a in point.attributes))


def value(point):
    return point.as_int if point.WhichOneof("value") == "as_int" else point.as_double


def count_of(request, scope_name, metric_name, route):
    found = [p.count for s, m in metrics(request) if s == scope_name and m.name == metric_name and m.WhichOneof("data") == "histogram"
             for p in m.histogram.data_points if dict(attributes(p)).get("http.route") == route]
    return found[0] if len(found) == 1 else None


# The sample: cumulative.
sample = exports(SAMPLE_DIR)
check(len(sample) >= 2, f"the sample made {len(sample)} exports (expected at least 2: the load takes seconds, the interval is 1 s)")
temporalities = {m.sum.aggregation_temporality if m.WhichOneof("data") == "sum" else m.histogram.aggregation_temporality
                 for _, r in sample for _, m in metrics(r) if m.WhichOneof("data") in ("sum", "histogram")}
check(temporalities == {CUMULATIVE}, f"the sample's sums and histograms are all cumulative ({sorted(temporalities)})")
previous, went_down = {}, []
for name, request in sample:
    for scope_name, metric in metrics(request):
        kind = metric.WhichOneof("data")
        if scope_name in CALLBACK_SCOPES:
            continue
        if kind == "sum" and metric.sum.is_monotonic:
            readings = [(attributes(p), value(p)) for p in metric.sum.data_points]
        elif kind == "histogram":
            readings = [(attributes(p), p.count) for p in metric.histogram.data_points]
        else:
            continue
        for key, reading in readings:
            series = (scope_name, metric.name, key)
            if reading < previous.get(series, reading):
                went_down.append(f"{name}: {metric.name}{dict(key)} {previous[series]} -> {reading}")
            previous[series] = reading
check(not went_down, f"no cumulative count of the sample goes down across {len(sample)} exports ({len(previous)} series){': ' + '; '.join(went_down[:5]) if went_down else ''}")
if sample:
    last = sample[-1][1]
    aspnet = count_of(last, "Microsoft.AspNetCore.Hosting", "http.server.request.duration", "/hello")
    check(aspnet == REQUESTS, f"last export: http.server.request.duration{{http.route=/hello}} count {aspnet} (expected {REQUESTS})")
    own = count_of(last, "ScalableMetrics", "webapi.request.duration", "/hello")
    check(own == REQUESTS, f"last export: webapi.request.duration{{http.route=/hello}} count {own} (expected {REQUESTS})")

# The worker: delta, gzip.
worker = exports(WORKER_DIR)
check(len(worker) >= 2, f"the worker made {len(worker)} exports (expected at least 2)")
check(all(name.endswith(".gz.pb") for name, _ in worker), "every worker export came gzipped")
temporalities = {m.sum.aggregation_temporality if m.WhichOneof("data") == "sum" else m.histogram.aggregation_temporality
                 for _, r in worker for _, m in metrics(r)
                 if (m.WhichOneof("data") == "sum" and m.sum.is_monotonic) or m.WhichOneof("data") == "histogram"}
check(temporalities == {DELTA}, f"the worker's counters and histograms are all delta ({sorted(temporalities)})")
items = sum(value(p) for _, r in worker for s, m in metrics(r) if s == "ScalableMetrics" and m.name == "worker.items"
            for p in m.sum.data_points if dict(attributes(p)).get("work.kind") == "collatz")
check(items == ITEMS, f"the deltas of worker.items{{work.kind=collatz}} add up to {items} (expected {ITEMS})")
steps = sum(p.count for _, r in worker for s, m in metrics(r) if s == "ScalableMetrics" and m.name == "worker.item.steps"
            for p in m.histogram.data_points if dict(attributes(p)).get("work.kind") == "collatz")
check(steps == ITEMS, f"the delta counts of worker.item.steps{{work.kind=collatz}} add up to {steps} (expected {ITEMS})")

sys.exit(1 if failures else 0)
