#!/usr/bin/env python3
"""Checks the exemplars of samples/Worker's exponential histogram worker_item_number, which the
run keeps with a view (ScalableMetrics:Registry:Views, ExemplarFilter AlwaysOn): in the worker's
protobuf scrape, decoded with classes protoc generates from client_model's metrics.proto
(the copy vendored in tests/Exporter.Tests/Prometheus/Exposition/proto), and, where the
native-histograms Prometheus reads them, through its exemplar API.

    python3 scripts/e2e-check-native-exemplars.py PROMETHEUS_URL WORKER_METRICS_URL SCOPE ITEMS PROTO_PY_DIR START

A native histogram's exemplars go in Histogram.exemplars (client_model#80), each with a timestamp,
which Prometheus requires there; the worker records each item's number, 1 to ITEMS, once, outside
any trace. Checks that the message of worker_item_number{work_kind="collatz"} carries 1 to 20 of
them (the reservoir is min(20, max buckets)), each with a timestamp from START (Unix seconds) to
now, oldest first, an item number as its value and no labels (AlwaysOn outside a trace); and that
its classic buckets carry none (as before exemplars on native histograms). Prometheus reads
Histogram.exemplars from 2.51.0 (prometheus/prometheus#13488; 2.55.0 fixed a parser position that
could drop those of a family's later series, #14810): from that release the server must hold some
of them, each an item number; an older server (Debian's 2.42) reads exemplars only from classic
buckets, so the line says so and the scrape's own message is the check. Waits (up to 60 s: the
worker may still be working) until they pass, then exits 0 when every check passes, 1 otherwise,
printing one line per check.
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
    now = time.time()
    data = api(prometheus, "/api/v1/query_exemplars", query=f'{FAMILY}{{job="worker"}}', start=START - 60, end=now + 60)
    return [float(e["value"]) for series in data for e in series["exemplars"]]


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
    if parts >= FIRST_READING_RELEASE:
        stored = stored_exemplars(PROMETHEUS)
        checks.append((len(stored) > 0 and all(v == int(v) and 1 <= v <= ITEMS for v in stored),
                       f"{FAMILY}: Prometheus {version} stored {len(stored)} of them, each an item number"))
    else:
        checks.append((True, f"{FAMILY}: not read back: Prometheus {version} reads a native histogram's exemplars only from 2.51.0 "
                             "(Histogram.exemplars, prometheus/prometheus#13488); before, only classic buckets' exemplars"))
    return all(ok for ok, _ in checks), checks


run_until_passed(run_checks, 60)
