using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;
using ScalableMetrics.Samples.WebApi;
using ScalableMetrics.Samples.Worker;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Transport;

/// <summary>The periodic push as a host runs it: the final export on stop, one export at a time, and the samples' switch.</summary>
public sealed class OtlpExportServiceTests : IAsyncLifetime
{
    private FaultInjectingOtlpReceiver _receiver = null!;

    public async Task InitializeAsync() => _receiver = await FaultInjectingOtlpReceiver.StartAsync();

    public async Task DisposeAsync() => await _receiver.DisposeAsync();

    [Fact]
    public async Task ExportsOnceWhenTheHostStops()
    {
        using IHost host = Host(o => o.ExportInterval = TimeSpan.FromHours(1));
        await host.StartAsync();
        Assert.Empty(_receiver.Requests);

        await host.StopAsync();

        FaultInjectedRequest request = Assert.Single(_receiver.Requests);
        Assert.Equal("/v1/metrics", request.Path);
        Assert.Equal("application/x-protobuf", request.Headers["content-type"]);
    }

    [Fact]
    public async Task TheFinalExportEndsWithTheStopsTime()
    {
        _receiver.Enqueue(new OtlpFault.Slow(TimeSpan.FromMinutes(10)));
        using IHost host = Host(o =>
        {
            o.ExportInterval = TimeSpan.FromHours(1);
            o.Timeout = TimeSpan.FromHours(1);
            o.ExportTimeout = TimeSpan.FromHours(1);
        });
        await host.StartAsync();
        using var stopTime = new CancellationTokenSource();
        Task stop = host.StopAsync(stopTime.Token);
        Assert.True(await _receiver.WaitForRequestsAsync(1));

        // The receiver never answers and every timeout is an hour: only the stop's token ends the export.
        await stopTime.CancelAsync();

        Assert.Same(stop, await Task.WhenAny(stop, Task.Delay(TimeSpan.FromMinutes(1))));
        await stop;
        Assert.Single(_receiver.Requests);
    }

    [Fact]
    public async Task NeverExportsTwiceAtOnce()
    {
        // Every answer takes longer than the interval: a timer that did not wait would overlap them.
        _receiver.Enqueue(Enumerable.Repeat<OtlpFault>(new OtlpFault.Slow(TimeSpan.FromMilliseconds(100)), 6).ToArray());
        using IHost host = Host(o => o.ExportInterval = TimeSpan.FromMilliseconds(10));
        await host.StartAsync();

        Assert.True(await _receiver.WaitForRequestsAsync(4));
        int periodicMaxInFlight = _receiver.MaxInFlight;
        await host.StopAsync();

        // Measured before the stop: the stop cancels the export in flight, and the receiver may see
        // that request end only after the final export's request began.
        Assert.Equal(1, periodicMaxInFlight);
        Assert.InRange(_receiver.Requests.Count, 5, 20);
    }

    [Fact]
    public async Task ADeltaExportRefusedWithANonRetryableStatusIsDroppedNotCarriedIntoTheNext()
    {
        _receiver.Enqueue(new OtlpFault.Answer(400, "invalid"));
        using IHost host = Host(o =>
        {
            o.ExportInterval = TimeSpan.FromHours(1);
            o.Temporality = OtlpTemporality.Delta;
        });
        await host.StartAsync();
        PartitionedCounter counter = host.Services.GetRequiredService<MetricRegistry>().CreateCounter("otlp.service.items");
        OtlpExportService service = OtlpPart.Of(host.Services)!.Service;

        counter.Add(5);
        await service.ExportAsync(CancellationToken.None);
        counter.Add(3);
        await service.ExportAsync(CancellationToken.None);
        await host.StopAsync();

        // The export at stop has nothing added since the second: no point (metrics/sdk.md, "MetricReader").
        long?[] values = [.. _receiver.Requests.Select(r => HasPoint(r, "otlp.service.items") ? Sum(r, "otlp.service.items") : (long?)null)];
        Assert.Equal([5, 3, null], values);
    }

    [Fact]
    public async Task AFailedDeltaExportsChangesGoWithTheNextExport()
    {
        // Retryable, but a retry would end past the export timeout: the data may yet be taken.
        _receiver.Enqueue(new OtlpFault.Answer(503, "not now", RetryAfter: TimeSpan.FromHours(1)));
        using IHost host = Host(o =>
        {
            o.ExportInterval = TimeSpan.FromHours(1);
            o.Temporality = OtlpTemporality.Delta;
            o.Compression = OtlpCompression.Gzip;
        });
        await host.StartAsync();
        PartitionedCounter counter = host.Services.GetRequiredService<MetricRegistry>().CreateCounter("otlp.service.items");
        OtlpExportService service = OtlpPart.Of(host.Services)!.Service;

        counter.Add(5);
        await service.ExportAsync(CancellationToken.None);
        counter.Add(3);
        await service.ExportAsync(CancellationToken.None);
        counter.Add(1);
        await host.StopAsync();

        long[] values = [.. _receiver.Requests.Select(r => Sum(r, "otlp.service.items"))];
        Assert.Equal([5, 8, 1], values);
    }

    // The OTLP specification (opentelemetry-proto docs/specification.md, "OTLP/gRPC Concurrent
    // Requests"): a client shutting down waits for pending acknowledgements, within a timeout, for
    // reliable delivery; docs/otlp.md has duplicates only where a request timed out or its answer
    // was lost. Here the receiver answers in well under Timeout and the stop has all the time it needs.
    [Fact]
    public async Task AnExportInFlightWhenTheHostStopsIsAnsweredNotSentAgain()
    {
        _receiver.Enqueue(new OtlpFault.Slow(TimeSpan.FromSeconds(1)));
        using IHost host = Host(o =>
        {
            o.ExportInterval = TimeSpan.FromMilliseconds(300);
            o.Temporality = OtlpTemporality.Delta;
        });
        PartitionedCounter counter = host.Services.GetRequiredService<MetricRegistry>().CreateCounter("otlp.service.items");
        counter.Add(5);
        await host.StartAsync();

        // The first periodic export is on its way, its answer a second off; the host stops meanwhile.
        Assert.True(await _receiver.WaitForRequestsAsync(1));
        await host.StopAsync();

        long[] values = [.. _receiver.Requests.Where(r => HasPoint(r, "otlp.service.items")).Select(r => Sum(r, "otlp.service.items"))];
        Assert.Equal(5, values.Sum());
    }

    // A stop whose time runs out while a periodic export is in flight cuts it and returns; the host
    // is then disposed while that export may still be unwinding from its cancellation. It must end
    // quietly, not by releasing a disposed gate (an ObjectDisposedException in the background service).
    [Fact]
    public async Task AnExportThatOutlivesTheStopEndsQuietlyAfterTheHostIsDisposed()
    {
        for (int round = 0; round < 5; round++)
        {
            _receiver.Enqueue(new OtlpFault.Slow(TimeSpan.FromMinutes(1)));
            IHost host = Host(o => o.ExportInterval = TimeSpan.FromMilliseconds(100));
            int before = _receiver.Requests.Count;
            await host.StartAsync();
            OtlpExportService service = OtlpPart.Of(host.Services)!.Service;
            Assert.True(await _receiver.WaitForRequestsAsync(before + 1));

            using (var stopTime = new CancellationTokenSource(TimeSpan.FromMilliseconds(100)))
            {
                await host.StopAsync(stopTime.Token);
            }

            host.Dispose();
            Task execute = service.ExecuteTask!;
            Assert.Same(execute, await Task.WhenAny(execute, Task.Delay(TimeSpan.FromSeconds(30))));
            Assert.False(execute.IsFaulted, $"round {round}: {execute.Exception}");
        }
    }

    // The specification (protocol/exporter.md, "User Agent"): "OpenTelemetry protocol exporters
    // SHOULD emit a User-Agent header to at a minimum identify the exporter, the language of its
    // implementation, and the version of the exporter" (OpenTelemetry .NET sends
    // OTel-OTLP-Exporter-Dotnet/<version>).
    [Fact]
    public async Task SendsAUserAgentNamingTheExporter()
    {
        using IHost host = Host(o => o.ExportInterval = TimeSpan.FromHours(1));
        await host.StartAsync();

        await host.StopAsync();

        FaultInjectedRequest request = Assert.Single(_receiver.Requests);
        Assert.True(request.Headers.TryGetValue("user-agent", out string? userAgent), "no User-Agent header: " + string.Join(", ", request.Headers.Keys));
        Assert.Contains("ScalableMetrics", userAgent, StringComparison.OrdinalIgnoreCase);
    }

    // opentelemetry-proto docs/specification.md, "Empty Telemetry Envelopes": "senders SHOULD NOT
    // create empty envelopes (OTLP payloads that contain zero spans, zero metric points or zero log
    // records)", a ResourceMetrics with no ScopeMetrics among its examples.
    [Fact]
    public async Task ADeltaExportWithNothingToSendSendsNoEmptyRequest()
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?> { ["OTEL_EXPORTER_OTLP_ENDPOINT"] = _receiver.BaseAddress.AbsoluteUri });
        builder.AddScalableMetrics(o =>
        {
            o.ExportSelfMetrics = false;
            o.AddOtlpExporter(otlp =>
            {
                otlp.ExportInterval = TimeSpan.FromHours(1);
                otlp.Temporality = OtlpTemporality.Delta;
            });
        });
        using IHost host = builder.Build();
        await host.StartAsync();
        PartitionedCounter counter = host.Services.GetRequiredService<MetricRegistry>().CreateCounter("otlp.service.items");
        OtlpExportService service = OtlpPart.Of(host.Services)!.Service;

        counter.Add(5);
        await service.ExportAsync(CancellationToken.None);

        // Nothing recorded since: the export has no data point to carry.
        await host.StopAsync();

        int[] metrics = [.. _receiver.Requests.Select(r => global::OpenTelemetry.Proto.Collector.Metrics.V1.ExportMetricsServiceRequest.Parser.ParseFrom(r.Message))
            .Select(r => r.ResourceMetrics.SelectMany(m => m.ScopeMetrics).SelectMany(s => s.Metrics).Count())];
        Assert.Equal([1], metrics);
    }

    [Fact]
    public async Task TheVariablesAloneDoNotTurnTheExporterOn()
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?> { ["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"] = _receiver.Url("/v1/metrics").AbsoluteUri });
        builder.AddScalableMetrics();
        using IHost host = builder.Build();

        await host.StartAsync();
        await host.StopAsync();

        Assert.Empty(_receiver.Requests);
    }

    [Fact]
    public async Task TheWebApiSampleExportsWhenTheEndpointIsSet()
    {
        await using WebApplication app = WebApiApp.Create(["--urls", "http://127.0.0.1:0", "--OTEL_EXPORTER_OTLP_ENDPOINT", _receiver.BaseAddress.AbsoluteUri]);
        await app.StartAsync();
        await app.StopAsync();

        Assert.Equal("/v1/metrics", Assert.Single(_receiver.Requests).Path);
    }

    [Fact]
    public async Task TheWebApiSampleDoesNotExportWithoutIt()
    {
        await using WebApplication app = WebApiApp.Create(["--urls", "http://127.0.0.1:0", "--OTEL_EXPORTER_OTLP_ENDPOINT", string.Empty]);

        Assert.Null(OtlpPart.Of(app.Services));
    }

    [Fact]
    public async Task TheWorkerSampleExportsWhenTheMetricsEndpointIsSet()
    {
        using IHost host = WorkerApp.Create([
            "--ScalableMetrics:ScrapeListener:Port=" + FreeLoopbackPort().ToString(System.Globalization.CultureInfo.InvariantCulture),
            "--Worker:Items=10",
            "--OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", _receiver.Url("/custom").AbsoluteUri,
        ]);
        await host.StartAsync();
        await host.StopAsync();

        Assert.Equal("/custom", Assert.Single(_receiver.Requests).Path);
    }

    // The one data point of the sum named name, decoded with the classes generated from opentelemetry-proto.
    private static bool HasPoint(FaultInjectedRequest request, string name)
    {
        var decoded = global::OpenTelemetry.Proto.Collector.Metrics.V1.ExportMetricsServiceRequest.Parser.ParseFrom(request.Message);
        return OtlpDecoded.HasMetric(decoded, name);
    }

    private static long Sum(FaultInjectedRequest request, string name)
    {
        var decoded = global::OpenTelemetry.Proto.Collector.Metrics.V1.ExportMetricsServiceRequest.Parser.ParseFrom(request.Message);
        return Assert.Single(OtlpDecoded.Metric(decoded, name).Sum.DataPoints).AsInt;
    }

    private static int FreeLoopbackPort()
    {
        var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        listener.Start();
        int port = ((System.Net.IPEndPoint)listener.LocalEndpoint).Port;
        listener.Stop();
        return port;
    }

    private IHost Host(Action<ScalableMetricsOtlpOptions> configure)
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?> { ["OTEL_EXPORTER_OTLP_ENDPOINT"] = _receiver.BaseAddress.AbsoluteUri });
        builder.AddScalableMetrics(o => o.AddOtlpExporter(configure));
        return builder.Build();
    }
}
