#!/usr/bin/env python3
"""Checks what the .NET Aspire dashboard stored of a sample's OTLP export against the sample itself.

Usage: e2e-check-aspire.py DASHBOARD_DB RESOURCE SCRAPE [HELLO_COUNT]

DASHBOARD_DB is the dashboard's SQLite store (DIR/runs/<time>/dashboard.db, see
shared/otlp-backend-and-dotnet-counters.md), RESOURCE the sample's service.name, SCRAPE the
sample's OpenMetrics scrape taken just before it stopped (its final export followed). Every
instrument the dashboard holds for RESOURCE must be a family of the scrape, under the name the
exposition derives from it (dots and other characters to underscores, `_seconds` or `_bytes` for
the units `s` and `By`), with the unit the scrape's `# UNIT` says, and, for a histogram, bucket
bounds equal to the scrape's `le` values; every family of the scrape must be an instrument of
the dashboard, except those listed on a `note` line (the dashboard refuses exponential
histograms), and a runtime instrument missing from the scrape is a note too (its first series may
come after the scrape: an exception at stop). With HELLO_COUNT, ASP.NET Core's `http.server.request.duration` of route /hello must
count exactly that many requests in its last (cumulative) point. Prints `ok ...` / `FAIL ...`
lines; exits 1 on any FAIL.
"""
import re
import sqlite3
import struct
import sys

UNIT_SUFFIX = {"s": "seconds", "By": "bytes"}


def parse_scrape(path):
    families, units, bounds = {}, {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^# TYPE (\S+) (\S+)$", line)
            if m:
                families[m.group(1)] = m.group(2)
                continue
            m = re.match(r"^# UNIT (\S+) (\S+)$", line)
            if m:
                units[m.group(1)] = m.group(2)
                continue
            m = re.match(r"^(\S+)_bucket\{(.*)\} \S+", line)
            if m and m.group(1) in families:
                labels = m.group(2)
                le = re.search(r'(?:^|,)le="([^"]*)"', labels).group(1)
                series = re.sub(r'(?:^|,)le="[^"]*"', "", labels)
                if le != "+Inf":
                    bounds.setdefault(m.group(1), {}).setdefault(series, []).append(float(le))
    return families, units, {name: {tuple(b) for b in per.values()} for name, per in bounds.items()}


def family_of(name, unit):
    family = re.sub(r"[^a-zA-Z0-9_:]", "_", name)
    suffix = UNIT_SUFFIX.get(unit)
    if suffix and not family.endswith("_" + suffix):
        family += "_" + suffix
    return family


def main():
    db, resource, scrape = sys.argv[1], sys.argv[2], sys.argv[3]
    hello = int(sys.argv[4]) if len(sys.argv) > 4 else None
    families, units, scraped_bounds = parse_scrape(scrape)
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(
        "select i.instrument_id, s.scope_name, i.instrument_name, i.unit, i.instrument_type, i.aggregation_temporality "
        "from telemetry_metric_instruments i join telemetry_resources r using(resource_id) join telemetry_scopes s using(scope_id) "
        "where r.resource_name = ?", (resource,)).fetchall()
    failures = 0

    def check(ok, message):
        nonlocal failures
        print(("ok   " if ok else "FAIL ") + message)
        failures += 0 if ok else 1

    check(len(rows) > 0, f"{resource}: the dashboard holds {len(rows)} instruments")
    seen = set()
    for instrument_id, scope, name, unit, kind, temporality in rows:
        family = family_of(name, unit)
        seen.add(family)
        if family not in families and scope == "System.Runtime":
            # The runtime's meters report a series once it has one: an exception thrown at stop, after the scrape.
            print(f"note {scope}/{name}: not in the scrape taken before the stop")
            continue
        check(family in families, f"{scope}/{name} ({unit}) is the scrape's family {family}")
        if family not in families:
            continue
        expected_unit = UNIT_SUFFIX.get(unit)
        check(units.get(family) == expected_unit, f"{name}: unit {unit!r} read back, the scrape's # UNIT is {units.get(family)!r}")
        if kind == 3:
            check(temporality == 2, f"{name}: cumulative histogram")
            stored = set()
            for (blob,) in con.execute(
                "select p.explicit_bounds from telemetry_metric_points p join telemetry_metric_dimensions d using(dimension_id) "
                "where d.instrument_id = ? and p.point_id = (select max(point_id) from telemetry_metric_points where dimension_id = d.dimension_id)",
                (instrument_id,)):
                stored.add(struct.unpack(f"<{len(blob) // 8}d", blob) if blob else ())
            check(stored == scraped_bounds.get(family, set()),
                  f"{name}: bucket bounds read back {sorted(stored)[:2]}... equal the scrape's le values ({len(stored)} distinct list(s))")

    missing = sorted(f for f in families if f not in seen and f != "target")
    for family in missing:
        print(f"note {family}: in the scrape, not in the dashboard ({families[family]})")
    native = [f for f in missing if families[f] != "histogram"]
    check(not native, f"every family of the scrape but histograms the dashboard may refuse is an instrument there (missing: {native})")

    if hello is not None:
        counts = con.execute(
            "select p.histogram_count from telemetry_metric_points p join telemetry_metric_dimensions d using(dimension_id) "
            "join telemetry_metric_instruments i using(instrument_id) join telemetry_resources r using(resource_id) "
            "join telemetry_metric_dimension_attributes a on a.dimension_id = d.dimension_id "
            "where r.resource_name = ? and i.instrument_name = 'http.server.request.duration' and a.attribute_key = 'http.route' and a.attribute_value = '/hello' "
            "and p.point_id = (select max(point_id) from telemetry_metric_points where dimension_id = d.dimension_id)",
            (resource,)).fetchall()
        total = sum(c for (c,) in counts)
        check(total == hello, f"http.server.request.duration{{http.route=/hello}} counts {total} requests, {hello} sent")

    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
