using System.Diagnostics.Metrics;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using OpenTelemetry.Proto.Collector.Metrics.V1;
using OpenTelemetry.Proto.Metrics.V1;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;
using ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Transport;
using static ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.OtlpDecoded;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Configuration;

/// <summary>Where each OTLP setting comes from (code, then <c>ScalableMetrics:Otlp</c>, then <c>OTEL_*</c>, then defaults), and what stops the host.</summary>
public sealed class OtlpConfigurationTests
{
    private const string Secret = "s3cr3t-t0ken-value";

    [Fact]
    public void DefaultsAreOpenTelemetrys()
    {
        ScalableMetricsOtlpOptions options = Options(new Dictionary<string, string?>());

        Assert.True(options.Enabled);
        Assert.Null(options.Endpoint);
        Assert.Equal(new Uri("http://localhost:4318/v1/metrics"), options.ResolvedEndpoint());
        Assert.Equal(OtlpProtocol.HttpProtobuf, options.Protocol);
        Assert.Equal(OtlpCompression.None, options.Compression);
        Assert.Equal(OtlpTemporality.Cumulative, options.Temporality);
        Assert.Equal(TimeSpan.FromSeconds(10), options.Timeout);
        Assert.Equal(TimeSpan.FromSeconds(60), options.ExportInterval);
        Assert.Equal(TimeSpan.FromSeconds(30), options.ExportTimeout);
        Assert.Empty(options.Headers);

        // Safely under the 4 MiB a gRPC receiver takes by default, with room for its frame and more.
        Assert.InRange(options.MaxRequestBytes, 1024 * 1024, (4 * 1024 * 1024) - (256 * 1024));
    }

    [Fact]
    public void ReadsTheOpenTelemetryVariables()
    {
        ScalableMetricsOtlpOptions options = Options(new Dictionary<string, string?>
        {
            ["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://collector:4318/",
            ["OTEL_EXPORTER_OTLP_HEADERS"] = "api-key=a%20b%2Cc, tenant = t1 ,x=1",
            ["OTEL_EXPORTER_OTLP_METRICS_HEADERS"] = "x=2",
            ["OTEL_EXPORTER_OTLP_TIMEOUT"] = "2500",
            ["OTEL_EXPORTER_OTLP_COMPRESSION"] = "gzip",
            ["OTEL_METRIC_EXPORT_INTERVAL"] = "1000",
            ["OTEL_METRIC_EXPORT_TIMEOUT"] = "5000",
            ["OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE"] = "Delta",
        });

        Assert.Equal(new Uri("http://collector:4318/v1/metrics"), options.ResolvedEndpoint());
        Assert.Equal("a b,c", options.Headers["api-key"]);
        Assert.Equal("t1", options.Headers["tenant"]);
        Assert.Equal("2", options.Headers["x"]);
        Assert.Equal(TimeSpan.FromMilliseconds(2500), options.Timeout);
        Assert.Equal(OtlpCompression.Gzip, options.Compression);
        Assert.Equal(TimeSpan.FromSeconds(1), options.ExportInterval);
        Assert.Equal(TimeSpan.FromSeconds(5), options.ExportTimeout);
        Assert.Equal(OtlpTemporality.Delta, options.Temporality);
    }

    [Theory]
    [InlineData("grpc", null, "http://collector:4317/")]
    [InlineData("http/protobuf", null, "http://collector:4317/v1/metrics")]
    [InlineData("http/protobuf", "http://other:9000/custom", "http://other:9000/custom")]
    [InlineData("grpc", "http://other:9000", "http://other:9000/")]
    public void TheMetricsEndpointIsUsedAsItIsTheBaseEndpointGetsThePathForHttpOnly(string protocol, string? metricsEndpoint, string expected)
    {
        ScalableMetricsOtlpOptions options = Options(new Dictionary<string, string?>
        {
            ["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://collector:4317",
            ["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"] = metricsEndpoint,
            ["OTEL_EXPORTER_OTLP_PROTOCOL"] = protocol,
        });

        Assert.Equal(new Uri(expected), options.ResolvedEndpoint());
    }

    [Theory]
    [InlineData("http://collector:4318/otlp/?tenant=a", "http://collector:4318/otlp/v1/metrics?tenant=a")]
    [InlineData("https://collector/?tenant=a", "https://collector/v1/metrics?tenant=a")]
    public void TheBaseEndpointsPathGetsTheSignalsPathBeforeItsQuery(string baseEndpoint, string expected)
    {
        ScalableMetricsOtlpOptions options = Options(new Dictionary<string, string?> { ["OTEL_EXPORTER_OTLP_ENDPOINT"] = baseEndpoint });

        Assert.Equal(new Uri(expected), options.ResolvedEndpoint());
    }

    // Every failure's log line names the endpoint: one with a user name and password in its URL is
    // refused at start, the password never repeated.
    [Theory]
    [InlineData("OTEL_EXPORTER_OTLP_ENDPOINT", "http://user:" + Secret + "@collector:4318")]
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "https://user:" + Secret + "@collector/v1/metrics")]
    [InlineData("ScalableMetrics:Otlp:Endpoint", "http://user:" + Secret + "@collector:4318/v1/metrics")]
    [InlineData("OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://user:" + Secret + "@collector")]
    public async Task AnEndpointWithAPasswordStopsTheHostWithoutRepeatingIt(string key, string value)
    {
        using IHost host = Host(new Dictionary<string, string?> { [key] = value }, enable: true);

        OptionsValidationException error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.DoesNotContain(Secret, error.Message, StringComparison.Ordinal);
        Assert.Contains("@", error.Message, StringComparison.Ordinal);
    }

    // A key in the endpoint's query (?api-key=...) is not repeated by a start that fails over the endpoint.
    [Theory]
    [InlineData("OTEL_EXPORTER_OTLP_ENDPOINT", "http://user:pw@collector:4318?api-key=" + Secret, "http://collector:4318/")]
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "https://user:pw@collector/v1/metrics?api-key=" + Secret, "https://collector/v1/metrics")]
    [InlineData("ScalableMetrics:Otlp:Endpoint", "https://user:pw@collector/v1/metrics?tenant=a&api-key=" + Secret, "https://collector/v1/metrics")]
    [InlineData("OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://collector/v1?api-key=" + Secret, "'ftp://collector/v1'")]
    [InlineData("ScalableMetrics:Otlp:Endpoint", "collector:4318/v1/metrics?api-key=" + Secret, "")]
    public async Task AnEndpointsQueryIsNotRepeatedWhenItStopsTheHost(string key, string value, string shown)
    {
        using IHost host = Host(new Dictionary<string, string?> { [key] = value }, enable: true);

        OptionsValidationException error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.DoesNotContain(Secret, error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("api-key", error.Message, StringComparison.Ordinal);
        Assert.Contains(shown, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void LowMemoryIsItsOwnPreferenceNotDelta()
    {
        ScalableMetricsOtlpOptions options = Options(new Dictionary<string, string?> { ["OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE"] = "lowmemory" });

        Assert.Equal(OtlpTemporality.LowMemory, options.Temporality);
    }

    // Specification (metrics/sdk_exporters/otlp.md, "LowMemory"): Delta for synchronous Counter and
    // Histogram, Cumulative for UpDownCounter, asynchronous Counter and asynchronous UpDownCounter.
    [Fact]
    public async Task LowMemoryVariableExportsCountersAsDeltaAndObservableCountersAsCumulative()
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync();
        HostApplicationBuilder builder = Builder(new Dictionary<string, string?>
        {
            ["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.BaseAddress.AbsoluteUri,
            ["OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE"] = "lowmemory",
        });
        builder.AddScalableMetrics(o => o.AddOtlpExporter(e => e.ExportInterval = TimeSpan.FromHours(1)));
        using IHost host = builder.Build();
        await host.StartAsync();
        MetricRegistry registry = host.Services.GetRequiredService<MetricRegistry>();
        registry.CreateCounter("lowmemory.counter").Add(1);
        registry.CreateObservableCounter("lowmemory.observed", () => [new Measurement<long>(7)]);

        await host.StopAsync();

        ExportMetricsServiceRequest request = ExportMetricsServiceRequest.Parser.ParseFrom(Assert.Single(receiver.Requests).Message);
        Assert.Equal(AggregationTemporality.Delta, Metric(request, "lowmemory.counter").Sum.AggregationTemporality);
        Assert.Equal(AggregationTemporality.Cumulative, Metric(request, "lowmemory.observed").Sum.AggregationTemporality);
    }

    // OTEL_EXPORTER_OTLP_TIMEOUT and OTEL_METRIC_EXPORT_TIMEOUT are of the specification's Timeout
    // type (configuration/common.md, "Timeout"): "Implementations SHOULD interpret timeout zero
    // values (i.e. 0 indicating 0 milliseconds) as no limit (i.e. infinite)", and MAY substitute "a
    // very long time". Zero is not a bad value to stop the host for.
    [Theory]
    [InlineData("OTEL_EXPORTER_OTLP_TIMEOUT")]
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT")]
    [InlineData("OTEL_METRIC_EXPORT_TIMEOUT")]
    public void AZeroTimeoutVariableIsNoLimitNotABadSetting(string key)
    {
        ScalableMetricsOtlpOptions? options = null;
        Exception? error = Record.Exception(() => options = Options(new Dictionary<string, string?> { [key] = "0" }));

        Assert.Null(error);
        TimeSpan timeout = key == "OTEL_METRIC_EXPORT_TIMEOUT" ? options!.ExportTimeout : options!.Timeout;
        Assert.True(timeout >= TimeSpan.FromHours(1), $"{key}=0 gave {timeout}");
    }

    [Fact]
    public void CodeBeatsTheSectionWhichBeatsTheVariables()
    {
        var settings = new Dictionary<string, string?>
        {
            ["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"] = "http://env:4318/v1/metrics",
            ["OTEL_EXPORTER_OTLP_TIMEOUT"] = "1000",
            ["OTEL_EXPORTER_OTLP_COMPRESSION"] = "gzip",
            ["OTEL_EXPORTER_OTLP_HEADERS"] = "from=env,both=env",
            ["OTEL_METRIC_EXPORT_INTERVAL"] = "1000",
            ["ScalableMetrics:Otlp:Endpoint"] = "http://section:4318/v1/metrics",
            ["ScalableMetrics:Otlp:Timeout"] = "00:00:02",
            ["ScalableMetrics:Otlp:Headers:both"] = "section",
            ["ScalableMetrics:Otlp:Protocol"] = "Grpc",
            ["ScalableMetrics:Otlp:Temporality"] = "delta",
        };

        ScalableMetricsOtlpOptions options = Options(settings, o =>
        {
            o.Timeout = TimeSpan.FromSeconds(3);
            o.Protocol = OtlpProtocol.HttpProtobuf;
        });

        Assert.Equal(new Uri("http://section:4318/v1/metrics"), options.ResolvedEndpoint());
        Assert.Equal(TimeSpan.FromSeconds(3), options.Timeout);
        Assert.Equal(OtlpProtocol.HttpProtobuf, options.Protocol);
        Assert.Equal(OtlpCompression.Gzip, options.Compression);
        Assert.Equal(OtlpTemporality.Delta, options.Temporality);
        Assert.Equal(TimeSpan.FromSeconds(1), options.ExportInterval);
        Assert.Equal("env", options.Headers["from"]);
        Assert.Equal("section", options.Headers["both"]);
    }

    [Theory]
    [InlineData("OTEL_EXPORTER_OTLP_TIMEOUT", "ten")]
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", "-5")]
    [InlineData("OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318")]
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "ftp://collector")]
    [InlineData("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")]
    [InlineData("OTEL_EXPORTER_OTLP_COMPRESSION", "zstd")]
    [InlineData("OTEL_EXPORTER_OTLP_HEADERS", "novalue")]
    [InlineData("OTEL_METRIC_EXPORT_INTERVAL", "0")]
    [InlineData("OTEL_METRIC_EXPORT_TIMEOUT", "1.5")]
    [InlineData("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "sometimes")]
    [InlineData("ScalableMetrics:Otlp:Timeout", "soon")]
    [InlineData("ScalableMetrics:Otlp:ExportInterval", "-00:00:01")]
    [InlineData("ScalableMetrics:Otlp:Protocol", "carrier-pigeon")]
    [InlineData("ScalableMetrics:Otlp:Endpoint", "/relative")]
    [InlineData("ScalableMetrics:Otlp:Headers:Content-Type", "text/plain")]
    [InlineData("ScalableMetrics:Otlp:MaxRequestBytes", "4M")]
    public async Task ABadSettingStopsTheHostNamingIt(string key, string value)
    {
        using IHost host = Host(new Dictionary<string, string?> { [key] = value }, enable: true);

        OptionsValidationException error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Contains(key.StartsWith("ScalableMetrics:Otlp:Headers", StringComparison.Ordinal) ? "Headers: 'Content-Type'" : key, error.Message);
    }

    // Headers carry credentials (an API key, a bearer token), and a host whose start fails logs the
    // message: a malformed entry is named by its place and its header name, never by its text.
    [Theory]
    [InlineData("Authorization: Bearer " + Secret, "entry 1 of 1 (header 'Authorization', written with ':' where '=' was meant) is not name=value: it has no '='")]
    [InlineData("Authorization: Basic " + Secret + "==", "entry 1 of 1 (header 'Authorization', written with ':' where '=' was meant) is not name=value: the text before its '='")]
    [InlineData("api-key=ok,x-token " + Secret, "entry 2 of 2 is not name=value: it has no '='")]
    [InlineData("api-key=ok,=" + Secret, "entry 2 of 2 is not name=value: it has no name before its '='")]
    public async Task AMalformedHeadersEntryStopsTheHostNamingItsPlaceNotItsText(string headers, string named)
    {
        using IHost host = Host(new Dictionary<string, string?> { ["OTEL_EXPORTER_OTLP_HEADERS"] = headers }, enable: true);

        OptionsValidationException error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Contains("OTEL_EXPORTER_OTLP_HEADERS: " + named, error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(Secret, error.Message, StringComparison.Ordinal);
    }

    // A value given without its header's name ("Authorization=" left out), percent-encoded as the
    // specification asks and ending in base64's '=' padding: the text before that '=' is the credential,
    // and its raw form ('%' is a token character) passes for a header name though its decoded form does not.
    [Fact]
    public async Task AHeaderValueGivenWithoutItsNameStopsTheHostWithoutRepeatingIt()
    {
        using IHost host = Host(new Dictionary<string, string?> { ["OTEL_EXPORTER_OTLP_HEADERS"] = "api-key=ok,Basic%20" + Secret + "==" }, enable: true);

        OptionsValidationException error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Contains("OTEL_EXPORTER_OTLP_HEADERS: entry 2 of 2", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(Secret, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AHeaderNameSetInCodeThatIsNotOneStopsTheHostWithoutRepeatingIt()
    {
        HostApplicationBuilder builder = Builder([]);
        builder.AddScalableMetrics(o => o.AddOtlpExporter(otlp => otlp.Headers["Authorization: Bearer " + Secret] = "x"));
        using IHost host = builder.Build();

        OptionsValidationException error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Contains("Headers: a header's name is not an HTTP header name", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(Secret, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ABadValueSetInCodeStopsTheHostNamingTheOption()
    {
        HostApplicationBuilder builder = Builder([]);
        builder.AddScalableMetrics(o => o.AddOtlpExporter(otlp =>
        {
            otlp.ExportTimeout = TimeSpan.Zero;
            otlp.Endpoint = new Uri("file:///tmp/x");
            otlp.MaxRequestBytes = 1023;
        }));
        using IHost host = builder.Build();

        OptionsValidationException error = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Equal(3, error.Failures.Count());
        Assert.Contains("MaxRequestBytes must be at least 1024", error.Message);
        Assert.Contains("ExportTimeout", error.Message);
        Assert.Contains("Endpoint", error.Message);
    }

    [Fact]
    public async Task BadVariablesDoNotStopAHostWithoutTheExporter()
    {
        using IHost host = Host(new Dictionary<string, string?> { ["OTEL_EXPORTER_OTLP_TIMEOUT"] = "ten" }, enable: false);

        await host.StartAsync();
        await host.StopAsync();

        Assert.Null(OtlpPart.Of(host.Services));
    }

    [Fact]
    public void AddOtlpExporterRejectsNullOptions() =>
        Assert.Equal("options", Assert.Throws<ArgumentNullException>(() => ((ScalableMetricsOptions)null!).AddOtlpExporter()).ParamName);

    private static ScalableMetricsOtlpOptions Options(Dictionary<string, string?> settings, Action<ScalableMetricsOtlpOptions>? configure = null)
    {
        HostApplicationBuilder builder = Builder(settings);
        builder.AddScalableMetrics(o => o.AddOtlpExporter(configure));
        using IHost host = builder.Build();
        return OtlpPart.Of(host.Services)!.Options;
    }

    private static IHost Host(Dictionary<string, string?> settings, bool enable)
    {
        HostApplicationBuilder builder = Builder(settings);
        builder.AddScalableMetrics(o =>
        {
            if (enable)
            {
                o.AddOtlpExporter();
            }
        });
        return builder.Build();
    }

    // No default sources: the process's own OTEL_* variables must not leak into a test.
    private static HostApplicationBuilder Builder(Dictionary<string, string?> settings)
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(settings);
        return builder;
    }
}
