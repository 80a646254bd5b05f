namespace ScalableMetrics.Tests;

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

    private static Instrument Create(MetricRegistry registry, string kind, string nameAndUnit)
    {
        string[] parts = nameAndUnit.Split('|');
        return kind == "counter"
            ? registry.CreateCounter(parts[0], parts.Length > 1 ? parts[1] : null)
            : registry.CreateOperationData(parts[0]);
    }
}
