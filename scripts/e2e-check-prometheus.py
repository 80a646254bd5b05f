#!/usr/bin/env python3
"""Checks, through a real Prometheus server's HTTP API, the exact values of the sample's awkward
series (samples/WebApi/AwkwardSeries.cs; keep the two in step), the /hello request count, the
/hello request duration histogram (its _count is the number of requests, its buckets cumulative,
ending in le="+Inf" equal to _count), ASP.NET Core's own http.server.request.duration for /hello
(taken from the meter Microsoft.AspNetCore.Hosting by the listener: its _count is the number of
requests too, at the boundaries ASP.NET Core advises), that the runtime's GC and thread-pool
metrics (meter System.Runtime) and Kestrel's connection metrics are there, and that the README's
99th-percentile query answers a finite number, and that no `_created` series is stored (they are
off by default, so the values above are what a server reads without them).

    python3 scripts/e2e-check-prometheus.py PROMETHEUS_URL SCOPE HELLO_COUNT

Waits (up to 30 s) until Prometheus has scraped the values, then exits 0 when every one is
exact, 1 otherwise, printing one line per check. Labels are compared whole, as Prometheus stores
them (minus job and instance), so a label merged, renamed, dropped or added fails the check.
"""
import math
import sys

from prometheus_api import query, run_until_passed, stored_labels

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
    ("awkward_double_total", {"dir": "in"}, "0.5"),
    ("awkward_up_down", {"queue": "q"}, "-7"),
    ("awkward_double_up_down", {}, "-0.25"),
    ("awkward_last_set", {"pool": "p"}, "-3"),
    ("awkward_fraction_ratio", {}, "0.75"),
    ("awkward_observed_total", {"source": "callback"}, "42"),
    ("awkward_observed_level", {}, "-1.5"),
    ("webapi_requests_total", {"http_route": "/hello", "http_response_status_code": "200"}, HELLO),
    ("webapi_request_duration_seconds_count", {"http_route": "/hello"}, HELLO),
    ("webapi_requests_in_flight", {"http_route": "/hello"}, "0"),
]

# (family, labels other than le, otel_scope_name, job and instance, {le: cumulative count} or
# None for any cumulative counts, _count, _sum or None for any)
HISTOGRAMS = [
    # 2^-17 (below 1e-05), 0.5, 2 and 2^22 (above 1e+06): one value per bucket.
    # Prometheus scrapes OpenMetrics, whose le values are canonical: Go's %g, with .0 where it has no point or exponent.
    ("awkward_buckets", {"k": "v"}, {"1e-05": "1", "1.0": "2", "1e+06": "3", "+Inf": "4"}, "4", "4194306.500007629"),
    ("awkward_op_buckets_seconds", {"db": "users"}, {"0.1": "0", "1.0": "2", "+Inf": "2"}, "2", "0.5"),
    ("webapi_request_duration_seconds", {"http_route": "/hello"}, None, HELLO, None),
]

# ASP.NET Core's advised boundaries for http.server.request.duration, as OpenMetrics' canonical
# numbers spell them (Go's %g, .0 appended without point or exponent; Prometheus scrapes OpenMetrics).
REQUEST_DURATION_LES = ["0.005", "0.01", "0.025", "0.05", "0.075", "0.1", "0.25", "0.5", "0.75", "1.0", "2.5", "5.0", "7.5", "10.0", "+Inf"]

# ASP.NET Core's http.server.request.duration as the e2e's view re-buckets it (VIEW_BOUNDARIES in
# scripts/e2e.sh), canonical; the view also drops url.scheme, so no stored series carries url_scheme.
VIEW_DURATION_LES = ["0.001", "0.01", "0.1", "1.0", "10.0", "30.0", "60.0", "+Inf"]

# The README's query: needs two scrapes of the load within the minute.
QUANTILE_QUERY = "histogram_quantile(0.99, rate(webapi_request_duration_seconds_bucket[1m]))"

# (PromQL, exact value)
AGGREGATES = [
    ("count(awkward_overflow_total)", "2001"),
    ("count(awkward_merged_total)", "2"),
    ("count(awkward_spellings_total)", "1"),
    ("sum(awkward_overflow_total)", "2050"),
    ('count(awkward_overflow_total{otel_metric_overflow=""})', "2000"),
    ('count({__name__=~"awkward_.*",otel_scope_name!="%s"})' % SCOPE, None),  # no series outside the scope: empty result
    ("count(awkward_throwing)", None),  # its callback throws: left out of every scrape, the rest intact
    ('count(target_info{job="sample",service_name!="",service_instance_id!=""})', "1"),  # the resource, once per target
]


# ASP.NET Core's http.server.request.duration for the /hello requests ab sent, labelled as
# Microsoft.AspNetCore.Hosting tags it (ab speaks HTTP/1.0); its meter name is its scope.
ASPNETCORE_SCOPE = "Microsoft.AspNetCore.Hosting"
ASPNETCORE_HELLO = {
    "http_route": "/hello",
    "http_request_method": "GET",
    "http_response_status_code": "200",
    "network_protocol_version": "1.0",
}

# (PromQL, predicate on the one value, what the predicate asks): the runtime's and Kestrel's
# instruments, whose values the sample does not control. dotnet.gc.collections is an observable
# counter tagged gc.heap.generation; .NET 10 publishes dotnet.thread_pool.thread.count as an
# observable counter too, hence its _total.
PRESENT = [
    ('count(dotnet_gc_collections_total{otel_scope_name="System.Runtime",gc_heap_generation=~"gen0|gen1|gen2"})', lambda v: v == 3, "3 (gen0, gen1, gen2)"),
    ('dotnet_thread_pool_thread_count_total{otel_scope_name="System.Runtime"}', lambda v: v >= 1, ">= 1"),
    ('dotnet_process_memory_working_set_bytes{otel_scope_name="System.Runtime"}', lambda v: v > 0, "> 0"),
    ('count(kestrel_connection_duration_seconds_count{otel_scope_name="Microsoft.AspNetCore.Server.Kestrel"})', lambda v: v >= 1, ">= 1 series"),
    ('count(kestrel_active_connections{otel_scope_name="Microsoft.AspNetCore.Server.Kestrel"})', lambda v: v >= 1, ">= 1 series"),
]


def check_series(name, labels, value, scope=SCOPE):
    expected = dict(labels, otel_scope_name=scope)
    found = []
    for result in query(PROMETHEUS, name):
        if stored_labels(result) == expected:
            found.append(result["value"][1])
    if len(found) != 1:
        return False, f"{name}{expected}: {len(found)} series with exactly these labels"
    return found[0] == value, f"{name}{expected} = {found[0]} (expected {value})"


def check_histogram(family, labels, buckets, count, total, scope=SCOPE):
    expected = dict(labels, otel_scope_name=scope)
    found = {}
    for result in query(PROMETHEUS, family + "_bucket"):
        stored = stored_labels(result)
        le = stored.pop("le", None)
        if stored == expected and le is not None:
            found[le] = result["value"][1]
    les = sorted(found, key=float)
    counts = [float(found[le]) for le in les]
    problems = []
    if not les or les[-1] != "+Inf":
        problems.append("no le=\"+Inf\" bucket")
    if any(later < earlier for earlier, later in zip(counts, counts[1:])):
        problems.append("buckets not cumulative")
    if buckets is not None and found != buckets:
        problems.append(f"buckets {found} (expected {buckets})")
    expected_les = {"webapi_request_duration_seconds": REQUEST_DURATION_LES, "http_server_request_duration_seconds": VIEW_DURATION_LES}.get(family)
    if expected_les is not None and les != expected_les:
        problems.append(f"le values {les} (expected {expected_les})")
    if les and found[les[-1]] != count:
        problems.append(f"le=\"+Inf\" = {found[les[-1]]} (expected {count})")
    for suffix, value in (("_count", count), ("_sum", total)):
        ok, line = check_series(family + suffix, labels, value, scope) if value is not None else (True, "")
        if not ok:
            problems.append(line)
    summary = f"{family}{expected}: {len(les)} buckets, cumulative, le=\"+Inf\" = _count = {count}"
    return not problems, summary if not problems else f"{family}{expected}: " + "; ".join(problems)


def check_quantile():
    results = query(PROMETHEUS, QUANTILE_QUERY)
    values = {r["metric"].get("http_route"): r["value"][1] for r in results}
    hello = values.get("/hello")
    finite = hello is not None and math.isfinite(float(hello))
    return finite, f"{QUANTILE_QUERY} = {values} (/hello finite: {finite})"


def check_present(promql, predicate, wanted):
    result = query(PROMETHEUS, promql)
    got = float(result[0]["value"][1]) if len(result) == 1 else None
    return got is not None and predicate(got), f"{promql} = {got} (expected {wanted})"


def check_aggregate(promql, value):
    result = query(PROMETHEUS, promql)
    if value is None:
        return not result, f"{promql}: {'empty' if not result else result}"
    got = result[0]["value"][1] if len(result) == 1 else None
    return got == value, f"{promql} = {got} (expected {value})"


def run_checks():
    checks = ([check_series(*series) for series in SERIES]
              + [check_histogram(*histogram) for histogram in HISTOGRAMS]
              # Every /hello request, in ASP.NET Core's own histogram, in one series.
              + [check_histogram("http_server_request_duration_seconds", ASPNETCORE_HELLO, None, HELLO, None, ASPNETCORE_SCOPE)]
              + [check_aggregate('sum(http_server_request_duration_seconds_count{http_route="/hello"})', HELLO)]
              # The view dropped url.scheme: no series of the family carries it.
              + [check_aggregate('count(http_server_request_duration_seconds_count{url_scheme!=""})', None)]
              + [check_present(*present) for present in PRESENT]
              + [check_quantile()]
              + [check_aggregate(*aggregate) for aggregate in AGGREGATES]
              # No _created series beside the counters, histograms and summaries: OpenMetrics'
              # _created samples are off by default (issue 31), and every value above is read without them.
              + [check_aggregate('count({__name__=~".+_created"})', None)])
    return all(ok for ok, _ in checks), checks


run_until_passed(run_checks, 30)
