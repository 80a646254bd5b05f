#!/usr/bin/env python3
"""Checks the classic buckets that samples/Worker's exponential histogram worker_item_number
carries beside its native buckets in one protobuf Histogram message (as client_golang writes a
histogram of both kinds), against what the OpenMetrics-scraping Prometheus stored for the same
histogram.

    python3 scripts/e2e-check-classic.py PROMETHEUS_URL WORKER_METRICS_URL SCOPE ITEMS

The native-histograms Prometheus (Debian trixie's 2.53.3 in scripts/e2e.sh, run without
scrape_classic_histograms; bookworm's 2.42 has no such option) stores only the native histogram of
such a message, so this script scrapes the worker itself, asking
for the protobuf exposition as that Prometheus does, and decodes the delimited
io.prometheus.client.MetricFamily messages by hand (the wire format of Prometheus' metrics.proto:
MetricFamily 1 name, 4 metric; Metric 1 label, 7 histogram; Histogram 1 sample_count, 3 bucket,
5 schema, 12 positive_span; Bucket 1 cumulative_count, 2 upper_bound). Checks that the message
of worker_item_number{work_kind="collatz"} is native (schema 3, positive spans) and carries
classic buckets; that those are the items at or below each boundary (the worker records 1..ITEMS
once each), with sample_count ITEMS; and that each equals the worker_item_number_bucket{le} the
OpenMetrics Prometheus stored, le="+Inf" the sample count. Waits (up to 60 s: the worker may still
be working) until the values are exact, then exits 0 when every check passes, 1 otherwise,
printing one line per check.
"""
import os
import struct
import sys
import urllib.request

from prometheus_api import query, run_until_passed, stored_labels

# scripts/e2e.sh sets SCRAPE_AUTHORIZATION for the worker's scrape listener (basic auth), and
# SSL_CERT_FILE to the CA of its TLS certificate, which urllib's default context then trusts.
AUTH = {"Authorization": os.environ["SCRAPE_AUTHORIZATION"]} if os.environ.get("SCRAPE_AUTHORIZATION") else {}

PROMETHEUS, WORKER, SCOPE, ITEMS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
LABELS = {"otel_scope_name": SCOPE, "work_kind": "collatz"}
FAMILY = "worker_item_number"
# What Prometheus 2.42 with --enable-feature=native-histograms sends (scrape/scrape.go).
ACCEPT = ("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,"
          "text/plain;version=0.0.4;q=0.3,*/*;q=0.2")


def varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def fields(data):
    """The (field number, value) pairs of a message: ints for varints, floats for 64-bit, bytes for length-delimited."""
    at, found = 0, []
    while at < len(data):
        key, at = varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = varint(data, at)
        elif wire == 1:
            value, at = struct.unpack("<d", data[at:at + 8])[0], at + 8
        elif wire == 2:
            length, at = varint(data, at)
            value, at = data[at:at + length], at + length
        elif wire == 5:
            value, at = data[at:at + 4], at + 4
        else:
            raise ValueError(f"wire type {wire} of field {number}")
        found.append((number, value))
    return found


def families(body):
    """The delimited MetricFamily messages of a scrape body, each as its fields."""
    at = 0
    while at < len(body):
        length, at = varint(body, at)
        yield fields(body[at:at + length])
        at += length


def zigzag(value):
    return (value >> 1) ^ -(value & 1)


def scraped_histogram():
    """The Histogram message's fields of worker_item_number{work_kind="collatz"}, or None."""
    request = urllib.request.Request(WORKER, headers={"Accept": ACCEPT, **AUTH})
    with urllib.request.urlopen(request, timeout=5) as response:
        content_type, body = response.headers.get("Content-Type", ""), response.read()
    if "application/vnd.google.protobuf" not in content_type:
        raise RuntimeError(f"the worker answered {content_type!r}, not protobuf")
    for family in families(body):
        if dict((n, v) for n, v in family if n == 1).get(1) != FAMILY.encode():
            continue
        for number, metric in family:
            if number != 4:
                continue
            metric_fields = fields(metric)
            labels = {}
            for n, pair in metric_fields:
                if n == 1:
                    pair_fields = dict(fields(pair))
                    labels[pair_fields[1].decode()] = pair_fields[2].decode()
            if labels == LABELS:
                return next((fields(v) for n, v in metric_fields if n == 7), None)
    return None


def run_checks():
    histogram = scraped_histogram()
    if histogram is None:
        return False, [(False, f"{FAMILY}{LABELS}: no Histogram message in the worker's protobuf scrape")]
    count = next((v for n, v in histogram if n == 1), None)
    schema = next((zigzag(v) for n, v in histogram if n == 5), None)
    spans = [v for n, v in histogram if n == 12]
    buckets = [dict(fields(v)) for n, v in histogram if n == 3]
    classic = [(b.get(2, 0.0), b.get(1, 0)) for b in buckets]
    checks = [(schema == 3 and len(spans) > 0, f"{FAMILY}: native fields, schema {schema}, {len(spans)} positive spans (expected schema 3)"),
              (count == ITEMS, f"{FAMILY}: sample_count {count} (expected {ITEMS})")]
    expected = [(bound, min(int(bound), ITEMS)) for bound, _ in classic]
    checks.append((len(classic) > 0 and classic == expected,
                   f"{FAMILY}: {len(classic)} classic buckets in the same message {classic} (expected the items at or below each: {expected})"))

    stored = {}
    for result in query(PROMETHEUS, f'{FAMILY}_bucket{{job="worker"}}'):
        labels = stored_labels(result)
        le = labels.pop("le", None)
        if labels == LABELS and le is not None:
            stored[float(le)] = int(float(result["value"][1]))
    scraped = dict(classic)
    scraped[float("inf")] = count
    checks.append((stored == scraped,
                   f"{FAMILY}_bucket stored by the OpenMetrics Prometheus {sorted(stored.items())} = the protobuf message's buckets, +Inf its sample count {sorted(scraped.items())}"))
    return all(ok for ok, _ in checks), checks


run_until_passed(run_checks, 60)
