#!/usr/bin/env python3
"""Checks the exemplars of samples/Worker's exponential histogram worker_item_number, which the
run keeps with a view (ScalableMetrics:Registry:Views, ExemplarFilter AlwaysOn): in the worker's
protobuf scrape, decoded with classes protoc generates from client_model's metrics.proto
(the copy vendored in tests/Exporter.Tests/Prometheus/Exposition/proto), and as the
native-histograms Prometheus stored them, through its exemplar API (/api/v1/query_exemplars).

    python3 scripts/e2e-check-native-exemplars.py PROMETHEUS_URL WORKER_METRICS_URL SCOPE ITEMS PROTO_PY_DIR START

A native histogram's exemplars go in Histogram.exemplars (client_model#80), each with a timestamp,
which Prometheus requires there; the worker records each item's number, 1 to ITEMS, once, outside
any trace. Checks that the message of worker_item_number{work_kind="collatz"} carries 1 to 20 of
them (the reservoir is min(20, max buckets)), each with a timestamp from START (Unix seconds) to
now, oldest first, an item number as its value and no labels (AlwaysOn outside a trace); and that
its classic buckets carry none (as before exemplars on native histograms).

Prometheus reads Histogram.exemplars from 2.51.0 (prometheus/prometheus#13488), so an older server
fails the check (scripts/e2e.sh runs Debian trixie's 2.53.3 for it). From the server: that it
stored some for that series, every one as the worker recorded it (an item number, a timestamp from
START to now, no labels: no trace_id or span_id, as in the message), and at least one of the
message's exactly (value, and timestamp to the millisecond, Prometheus' resolution). Not
necessarily all of them: the server refuses, as out of order, an exemplar older than the newest it
holds for the series (tsdb/exemplar.go; in the same millisecond, a lower value is older), which an
exemplar timed just before a scrape read the reservoir but written just after it can be. Before
2.55.0 the protobuf parser never reset its position in Histogram.exemplars within a scrape
(ProtobufParser.exemplarPos, #14810), so a native histogram read after others with exemplars
skipped as many of its own as the most any of them had: worker_item_number is the only series of the worker's scrape with
Histogram.exemplars, so 2.53.3 reads all of its. Waits (up to 60 s: the worker may still be
working) until they pass, then exits 0 when every check passes, 1 otherwise, printing one line
per check.
"""
import os
import sys
import time
import urllib.request

PROMETHEUS, WORKER, SCOPE, ITEMS, PROTO_PY, START = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], float(sys.argv[6])
sys.path.insert(0, PROTO_PY)

import metrics_pb2  # noqa: E402  (generated into PROTO_PY by scripts/e2e.sh)
from google.protobuf.internal.decoder import _DecodeVarint32  # noqa: E402

from prometheus_api import api, run_until_passed  # noqa: E402

AUTH = {"Authorization": os.environ["SCRAPE_AUTHORIZATION"]} if os.environ.get("SCRAPE_AUTHORIZATION") else {}
LABELS = {"otel_scope_name": SCOPE, "work_kind": "collatz"}
FAMILY = "worker_item_number"
ACCEPT = "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited"
FIRST_READING_RELEASE = (2, 51, 0)


def scraped_histogram():
    request = urllib.request.Request(WORKER, headers={"Accept": ACCEPT, **AUTH})
    with urllib.request.urlopen(request, timeout=5) as response:
        body = response.read()
    at = 0
    while at < len(body):
        length, at = _DecodeVarint32(body, at)
        family = metrics_pb2.MetricFamily.FromString(body[at:at + length])
        at += length
        if family.name != FAMILY:
            continue
        for metric in family.metric:
            if {pair.name: pair.value for pair in metric.label} == LABELS:
                return metric.histogram
    return None


def release(prometheus):
    version = api(prometheus, "/api/v1/status/buildinfo")["version"]
    return version, tuple(int(part) for part in version.split("+")[0].split("-")[0].split(".")[:3])


def stored_exemplars(prometheus):
    """The (labels, exemplar) pairs the server holds for the series, in the run's time."""
    now = time.time()
    selector = FAMILY + "{" + ",".join(f'{name}="{value}"' for name, value in {**LABELS, "job": "worker"}.items()) + "}"
    data = api(prometheus, "/api/v1/query_exemplars", query=selector, start=START - 60, end=now + 60)
    return [(series["seriesLabels"], e) for series in data for e in series["exemplars"]]


def millis(seconds, nanos=0):
    """A timestamp in milliseconds, as Prometheus stores an exemplar's (seconds * 1000 + nanos / 10^6, truncated)."""
    return seconds * 1000 + nanos // 1_000_000


def run_checks():
    histogram = scraped_histogram()
    if histogram is None:
        return False, [(False, f"{FAMILY}{LABELS}: no Histogram message in the worker's protobuf scrape")]
    now = time.time()
    exemplars = list(histogram.exemplars)
    stamps = [e.timestamp.seconds + e.timestamp.nanos / 1e9 for e in exemplars]
    values = [e.value for e in exemplars]
    checks = [
        (1 <= len(exemplars) <= 20, f"{FAMILY}: {len(exemplars)} exemplars in Histogram.exemplars (expected 1 to 20)"),
        (all(e.HasField("timestamp") for e in exemplars) and all(START <= s <= now + 1 for s in stamps) and stamps == sorted(stamps),
         f"{FAMILY}: every exemplar has a timestamp from the run's start to now, oldest first"),
        (all(v == int(v) and 1 <= v <= ITEMS for v in values), f"{FAMILY}: every value an item number 1..{ITEMS} ({sorted(values)[:5]}...)"),
        (all(len(e.label) == 0 for e in exemplars), f"{FAMILY}: no labels (AlwaysOn, recorded outside any trace)"),
        (len(histogram.bucket) > 0 and not any(b.HasField("exemplar") for b in histogram.bucket),
         f"{FAMILY}: its {len(histogram.bucket)} classic buckets carry no exemplar"),
    ]
    version, parts = release(PROMETHEUS)
    if parts < FIRST_READING_RELEASE:
        checks.append((False, f"{FAMILY}: Prometheus {version} reads a native histogram's exemplars only from "
                              f"{'.'.join(map(str, FIRST_READING_RELEASE))} (Histogram.exemplars, prometheus/prometheus#13488)"))
        return False, checks
    stored = stored_exemplars(PROMETHEUS)
    stored_values = [float(e["value"]) for _, e in stored]
    # The API gives an exemplar's timestamp in seconds, a float of its stored milliseconds.
    stored_keys = {(round(float(e["timestamp"]) * 1000), float(e["value"])) for _, e in stored}
    sent_keys = [(millis(e.timestamp.seconds, e.timestamp.nanos), e.value) for e in exemplars]
    matched = [key for key in sent_keys if key in stored_keys]
    series = {tuple(sorted(labels.items())) for labels, _ in stored}
    checks += [
        (len(stored) > 0 and len(series) == 1,
         f"{FAMILY}: Prometheus {version} stored {len(stored)} exemplars for the series ({len(series)} series)"),
        (len(stored) > 0 and all(v == int(v) and 1 <= v <= ITEMS for v in stored_values),
         f"{FAMILY}: every stored value an item number 1..{ITEMS} ({sorted(stored_values)[:5]}...)"),
        (len(stored) > 0 and all(START * 1000 <= round(float(e["timestamp"]) * 1000) <= (now + 1) * 1000 for _, e in stored),
         f"{FAMILY}: every stored timestamp from the run's start to now"),
        (len(stored) > 0 and all(not e.get("labels") for _, e in stored),
         f"{FAMILY}: no stored labels (no trace_id or span_id: none recorded, none in the message)"),
        (len(matched) > 0,
         f"{FAMILY}: {len(matched)} of the message's {len(sent_keys)} stored exactly (value, timestamp to the millisecond)"),
    ]
    return all(ok for ok, _ in checks), checks


run_until_passed(run_checks, 60)
