using ScalableMetrics.Naming;

namespace ScalableMetrics.Tests.Naming;

/// <summary>Instruments whose exported names meet are refused at creation, with both named.</summary>
public class ExportedNameCollisionTests
{
    public static TheoryData<string, string, string, string> Pairs => new()
    {
        // first kind, first name (unit after '|'), second kind, second name: they would share a name
        { "counter", "coll.a", "counter", "coll_a" },
        { "counter", "coll_a", "counter", "coll-a" },
        { "counter", "req", "counter", "req.total" },
        { "counter", "req.total", "counter", "req" },
        { "counter", "lat_seconds|s", "operation", "lat" },
        { "operation", "lat", "counter", "lat_seconds|s" },
        { "operation", "lat", "counter", "lat.seconds.sum" },
        { "operation", "lat", "counter", "lat.seconds.count" },
        { "operation", "lat", "operation", "lat_seconds" },
        { "operation", "lat", "counter", "lat_count" },
        { "counter", "size|By", "counter", "size_bytes" },
        { "counter", "x.created", "counter", "x" },
        { "counter", "x", "counter", "x.created" },
        { "histogram", "lat|s", "counter", "lat_seconds_bucket" },
        { "histogram", "lat|s", "counter", "lat.seconds.count" },
        { "histogram", "lat|s", "updown", "lat_seconds_sum" },
        { "histogram", "lat|s", "operation", "lat" },
        { "histogram", "lat|s", "operation-buckets", "lat" },
        { "operation-buckets", "lat", "histogram", "lat_seconds" },
        { "operation-buckets", "lat", "updown", "lat_seconds_bucket" },
        { "histogram", "h", "doublecounter", "h_created" },
        { "counter", "x", "updown", "x_total" },
        { "updown", "x_total", "counter", "x" },
        { "updown", "q|1", "doubleupdown", "q_ratio" },
        { "doublecounter", "size|By", "counter", "size_bytes" },
        { "doubleupdown", "d", "histogram", "d" },
    };

    [Theory]
    [MemberData(nameof(Pairs))]
    public void AnInstrumentWhoseExportedNamesMeetAnExistingOnesIsRefused(string firstKind, string first, string secondKind, string second)
    {
        var registry = new MetricRegistry();
        Instrument existing = Create(registry, firstKind, first);
        var e = Assert.Throws<ArgumentException>(() => Create(registry, secondKind, second));
        Assert.Equal("name", e.ParamName);
        Assert.Contains($"'{existing.Name}'", e.Message);
        Assert.Contains($"'{second.Split('|')[0]}'", e.Message);
        Assert.Same(existing, Assert.Single(registry.Instruments));
    }

    [Theory]
    [InlineData("counter", "target")]
    [InlineData("counter", "target.total")]
    [InlineData("updown", "target")]
    [InlineData("updown", "target_info")]
    [InlineData("updown", "target.info")]
    [InlineData("histogram", "target")]
    [InlineData("doublecounter", "target")]
    public void AnInstrumentThatWouldExportAsTheResourcesTargetInfoFamilyIsRefused(string kind, string name)
    {
        // OpenMetrics 1.0 writes target_info as the info family "target" (sample target_info), and
        // the text format as the gauge target_info: a second family of either name is invalid.
        var registry = new MetricRegistry();
        var e = Assert.Throws<ArgumentException>(() => Create(registry, kind, name));
        Assert.Equal("name", e.ParamName);
        Assert.Contains("target_info", e.Message);
        Assert.Empty(registry.Instruments);
    }

    [Fact]
    public void NamesNearTheResourcesFamilyAreCreated()
    {
        // Prometheus names are case-sensitive, and an operation exports as target_seconds.
        var registry = new MetricRegistry();
        registry.CreateDoubleCounter("Target");
        new MetricRegistry().CreateOperationData("target");
        registry.CreateCounter("targets");
        Assert.Equal(2, registry.Instruments.Count);
    }

    [Fact]
    public void InstrumentsThatExportApartAreCreated()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("a.b");
        registry.CreateCounter("a.b.c");
        registry.CreateCounter("a.bytes", "By");
        registry.CreateCounter("a.seconds", "ms");
        registry.CreateOperationData("a.op");
        registry.CreateOperationData("a.op2");
        Assert.Same(registry.Instruments[0], registry.CreateCounter("A.B"));
        Assert.Equal(6, registry.Instruments.Count);
    }

    [Fact]
    public void FamiliesAreTheNamesTheExpositionWrites()
    {
        ExportedFamily counter = ExportedFamily.ForCounter("webapi.requests", "{request}");
        Assert.Equal("webapi_requests", counter.Name);
        Assert.Equal(["webapi_requests_total"], counter.SampleNames);
        Assert.Equal("webapi_requests_created", counter.CreatedName);

        ExportedFamily total = ExportedFamily.ForCounter("req.total", null);
        Assert.Equal("req", total.Name);
        Assert.Equal(["req_total"], total.SampleNames);

        ExportedFamily operation = ExportedFamily.ForOperation("webapi.request.duration");
        Assert.Equal(ExportedKind.Summary, operation.Kind);
        Assert.Equal("webapi_request_duration_seconds", operation.Name);
        Assert.Equal(["webapi_request_duration_seconds_sum", "webapi_request_duration_seconds_count"], operation.SampleNames);
        Assert.Contains("webapi_request_duration_count_total", operation.ReservedNames);
    }

    [Fact]
    public void FamiliesOfTheNewKindsAreTheNamesTheExpositionWrites()
    {
        var registry = new MetricRegistry();
        ExportedFamily histogram = ExportedFamily.For(registry.CreateHistogram("webapi.request.duration", "s"));
        Assert.Equal(ExportedKind.Histogram, histogram.Kind);
        Assert.Equal("webapi_request_duration_seconds", histogram.Name);
        Assert.Equal(["webapi_request_duration_seconds_bucket", "webapi_request_duration_seconds_sum", "webapi_request_duration_seconds_count"], histogram.SampleNames);
        Assert.Equal(["webapi_request_duration_seconds", .. histogram.SampleNames, "webapi_request_duration_seconds_created"], histogram.ReservedNames);

        ExportedFamily upDown = ExportedFamily.For(registry.CreateUpDownCounter("webapi.requests.in_flight", "{request}"));
        Assert.Equal(ExportedKind.Gauge, upDown.Kind);
        Assert.Equal("webapi_requests_in_flight", upDown.Name);
        Assert.Equal(["webapi_requests_in_flight"], upDown.SampleNames);
        Assert.Equal(["webapi_requests_in_flight"], upDown.ReservedNames);

        ExportedFamily ratio = ExportedFamily.For(registry.CreateDoubleUpDownCounter("cache.fill", "1"));
        Assert.Equal((ExportedKind.Gauge, "cache_fill_ratio"), (ratio.Kind, ratio.Name));

        ExportedFamily bytes = ExportedFamily.For(registry.CreateDoubleCounter("webapi.response.size", "By"));
        Assert.Equal((ExportedKind.Counter, "webapi_response_size_bytes"), (bytes.Kind, bytes.Name));
        Assert.Equal(["webapi_response_size_bytes_total"], bytes.SampleNames);

        ExportedFamily latency = ExportedFamily.For(registry.CreateOperationData("db.query", boundaries: [0.01, 0.1]));
        Assert.Equal(ExportedKind.Histogram, latency.Kind);
        Assert.Equal("db_query_seconds", latency.Name);
        Assert.Equal(["db_query_seconds_bucket", "db_query_seconds_sum", "db_query_seconds_count"], latency.SampleNames);
        Assert.Contains("db_query_count_total", latency.ReservedNames);
        Assert.Equal(ExportedKind.Summary, ExportedFamily.For(registry.CreateOperationData("db.plain")).Kind);
    }

    private static Instrument Create(MetricRegistry registry, string kind, string nameAndUnit)
    {
        string[] parts = nameAndUnit.Split('|');
        string? unit = parts.Length > 1 ? parts[1] : null;
        return kind switch
        {
            "counter" => registry.CreateCounter(parts[0], unit),
            "operation" => registry.CreateOperationData(parts[0]),
            "operation-buckets" => registry.CreateOperationData(parts[0], boundaries: [0.1, 1]),
            "histogram" => registry.CreateHistogram(parts[0], unit),
            "updown" => registry.CreateUpDownCounter(parts[0], unit),
            "doubleupdown" => registry.CreateDoubleUpDownCounter(parts[0], unit),
            "doublecounter" => registry.CreateDoubleCounter(parts[0], unit),
            _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "Not an instrument kind."),
        };
    }
}
