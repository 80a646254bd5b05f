using ScalableMetrics.Exporter.Hosting;

namespace ScalableMetrics.Exporter.Tests.Hosting;

/// <summary>
/// <c>OTEL_SERVICE_NAME</c> and <c>OTEL_RESOURCE_ATTRIBUTES</c>, read as OpenTelemetry's resource
/// SDK specification reads them, without OpenTelemetry: the values <c>target_info</c> carries.
/// </summary>
public sealed class ServiceResourceTests
{
    [Fact]
    public void ResourceAttributesAreCommaSeparatedTrimmedAndPercentDecoded()
    {
        Dictionary<string, object?> detected = ServiceResource.Detect(null, " deployment.environment = prod ,team=a%2Cb%3Dc,note=x%20y");

        Assert.Equal("prod", detected["deployment.environment"]);
        Assert.Equal("a,b=c", detected["team"]);
        Assert.Equal("x y", detected["note"]);
        Assert.Equal(3, detected.Count);
    }

    // Resource SDK specification: "The `,` and `=` characters in keys and values MUST be percent encoded."
    [Fact]
    public void ResourceAttributeKeysArePercentDecodedAsValuesAre()
    {
        Dictionary<string, object?> detected = ServiceResource.Detect(null, "team%2Cname=a,x%3Dy=b");

        Assert.Equal("a", detected.GetValueOrDefault("team,name"));
        Assert.Equal("b", detected.GetValueOrDefault("x=y"));
        Assert.Equal(2, detected.Count);
    }

    [Fact]
    public void InvalidEntriesAreLeftOutAndTheRestKept()
    {
        Dictionary<string, object?> detected = ServiceResource.Detect(null, "novalue,=nokey,,ok=1,empty=");

        Assert.Equal(["empty", "ok"], detected.Keys.Order(StringComparer.Ordinal));
        Assert.Equal("1", detected["ok"]);
        Assert.Equal(string.Empty, detected["empty"]);
    }

    [Fact]
    public void ServiceNameVariableWinsOverTheAttributesServiceName()
    {
        Assert.Equal("from-variable", ServiceResource.Detect("from-variable", "service.name=from-attributes")["service.name"]);
        Assert.Equal("from-attributes", ServiceResource.Detect(" ", "service.name=from-attributes")["service.name"]);
    }

    [Fact]
    public void OptionsWinOverTheEnvironmentWhichWinsOverTheDefaults()
    {
        var options = new ScalableMetricsOptions { ServiceVersion = "9.9" };

        Dictionary<string, object?> attributes = new(ServiceResource.Attributes(options, "env-service", "service.version=1.0,service.instance.id=abc,region=eu"));

        Assert.Equal("env-service", attributes["service.name"]);
        Assert.Equal("9.9", attributes["service.version"]);
        Assert.Equal("abc", attributes["service.instance.id"]);
        Assert.Equal("eu", attributes["region"]);
    }

    [Fact]
    public void WithoutEnvironmentTheServiceIsNamedAndGivenAnInstanceId()
    {
        Dictionary<string, object?> attributes = new(ServiceResource.Attributes(new ScalableMetricsOptions(), null, null));

        Assert.False(string.IsNullOrEmpty(attributes["service.name"] as string));
        Assert.True(Guid.TryParse(attributes["service.instance.id"] as string, out _));
    }
}
