using ScalableMetrics.Naming;

namespace ScalableMetrics.Tests.Naming;

/// <summary>Names after OpenTelemetry's Prometheus compatibility specification.</summary>
public sealed class ExportedNamesTests
{
    [Theory]
    [InlineData("webapi.requests", "{request}", "Counter", "webapi_requests_total")]
    [InlineData("webapi.request.duration", "s", "Counter", "webapi_request_duration_seconds_total")]
    [InlineData("webapi.request.duration.count", "{operation}", "Counter", "webapi_request_duration_count_total")]
    [InlineData("http.server.duration", "ms", "Histogram", "http_server_duration_milliseconds")]
    [InlineData("payload.size", "By", "Histogram", "payload_size_bytes")]
    [InlineData("cpu.utilization", "1", "Gauge", "cpu_utilization_ratio")]
    [InlineData("cpu.utilization", "1", "Counter", "cpu_utilization_total")]
    [InlineData("requests.total", null, "Counter", "requests_total")]
    [InlineData("elapsed_seconds", "s", "Gauge", "elapsed_seconds")]
    [InlineData("throughput", "By/s", "Gauge", "throughput_bytes_per_second")]
    [InlineData("packets", "{packet}/s", "Gauge", "packets_per_second")]
    [InlineData("my-metric/with..dots", null, "Gauge", "my_metric_with_dots")]
    [InlineData("a__b", null, "Gauge", "a_b")]
    [InlineData("9lives", null, "Gauge", "_9lives")]
    [InlineData("room.temp", "Cel", "Gauge", "room_temp_celsius")]
    [InlineData("disk.usage", "%", "Gauge", "disk_usage_percent")]
    [InlineData("odd.unit", "{a}b{c}", "Gauge", "odd_unit_b")]
    [InlineData("cache.size", "kBy", "Gauge", "cache_size_kilobytes")]
    [InlineData("cache.size", "KBy", "Gauge", "cache_size_kilobytes")]
    [InlineData("seconds", "s", "Gauge", "seconds")]
    [InlineData("ratio", "1", "Gauge", "ratio")]
    public void AnInstrumentsNameUnitAndKindMakeItsPrometheusMetricName(string instrument, string? unit, string type, string expected) =>
        Assert.Equal(expected, ExportedNames.MetricName(instrument, unit, Enum.Parse<ExportedKind>(type)));

    // OpenTelemetry's Prometheus compatibility specification, "Sums": "If the metric name for
    // monotonic Sum metric points does not end in a suffix of `_total` a suffix of `_total` SHOULD be
    // added". "total" has no "_total" suffix; left as it is, its OpenMetrics family is "total" with a
    // sample "total", which is not the family's "_total" sample a counter must have.
    [Fact]
    public void ACounterNamedTotalGetsTheTotalSuffixLikeAnyOtherName()
    {
        Assert.Equal("total_total", ExportedNames.MetricName("total", null, ExportedKind.Counter));
        ExportedFamily family = ExportedFamily.ForCounter("total", null);
        Assert.Equal("total", family.Name);
        Assert.Equal(["total_total"], family.SampleNames);
        Assert.Equal("total_total", ExportedNames.Utf8MetricName("total", null, ExportedKind.Counter, withSuffixes: false));
        Assert.Equal("total_total", ExportedNames.Utf8MetricName("total", null, ExportedKind.Counter, withSuffixes: true));
    }

    // Another meter's tags reach the exporter already recorded, so a key the registry would refuse
    // (docs/how-it-works.md) is renamed rather than refused, as otel_scope_* already was: never
    // written beside a histogram bucket's le or a summary's quantile. OpenTelemetry's own overflow
    // attribute is written as it is.
    [Theory]
    [InlineData("le", "tag_le", "tag_le")]
    [InlineData("quantile", "tag_quantile", "tag_quantile")]
    [InlineData("otel_scope_name", "tag_otel_scope_name", "tag_otel_scope_name")]
    [InlineData("otel.scope.team", "tag_otel_scope_team", "otel.scope.team")]
    [InlineData("l.e", "l_e", "l.e")]
    [InlineData("lease", "lease", "lease")]
    [InlineData("otel.metric.overflow", "otel_metric_overflow", "otel.metric.overflow")]
    public void AnotherMetersTagThatWouldPassForALabelTheExpositionWritesIsWrittenWithTagBeforeIt(string key, string label, string utf8Label)
    {
        Assert.Equal(label, ExportedNames.TagLabelName(key));
        Assert.Equal(utf8Label, ExportedNames.Utf8TagLabelName(key));
    }

    // OpenMetrics 1.0: "Label names beginning with underscores are RESERVED and MUST NOT be used". A
    // label that would begin with '_' gets 'key' before it, as opentelemetry-collector-contrib's
    // NormalizeLabel does; under UTF-8 names only a key that begins with '_' as written would.
    [Theory]
    [InlineData("_internal", "key_internal", "key_internal")]
    [InlineData(".net.version", "key_net_version", ".net.version")]
    [InlineData("é", "key_", "é")]
    [InlineData("__name__", "key__name__", "key__name__")]
    public void NoLabelBeginsWithAnUnderscore(string key, string label, string utf8Label)
    {
        Assert.Equal(label, ExportedNames.TagLabelName(key));
        Assert.Equal(utf8Label, ExportedNames.Utf8TagLabelName(key));
    }

    [Theory]
    [InlineData("http.route", "http_route")]
    [InlineData("already_fine", "already_fine")]
    [InlineData("_private", "key_private")]
    [InlineData(".net.version", "key_net_version")]
    [InlineData("é", "key_")]
    [InlineData("ключ", "key____")]
    [InlineData("1st", "key_1st")]
    [InlineData("", "key_")]
    [InlineData("__reserved", "key__reserved")]
    [InlineData("a-b/c", "a_b_c")]
    [InlineData("a_", "a_")]
    [InlineData("ünï", "key_n_")]
    public void ATagKeyIsSanitizedIntoAPrometheusLabelName(string key, string expected) =>
        Assert.Equal(expected, ExportedNames.SanitizeLabelName(key));
}
