using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Transport;

/// <summary>
/// What a host's log holds, every category at every level, while the exporter pushes to a receiver
/// that is down, comes back, or is healthy. Exports are driven one by one (as the timer would, an
/// interval apart) and the waits between retries run on a clock whose timers fire at once, so no
/// test waits wall time; ten exports stand for ten seconds of a 1 s interval.
/// </summary>
public sealed class OtlpExportLoggingTests
{
    private const int Exports = 10;

    [Fact]
    public async Task AClosedEndpointLogsOneWarningAndNoStackAtInformationOrAbove()
    {
        var log = new CapturedLog();
        using IHost host = await StartedHostAsync(new Uri($"http://127.0.0.1:{ClosedLoopbackPort()}/v1/metrics"), log);
        int start = log.Entries.Count;

        await ExportAsync(host, times: Exports);

        // Each export made every attempt (the waits between them ran on the test's clock).
        CapturedLog.Entry warning = Assert.Single(log.AtInformationOrAbove(start));
        Assert.Equal(LogLevel.Warning, warning.Level);
        Assert.Equal(60, warning.EventId.Id);
        Assert.Contains("after 5 attempt(s)", warning.Message, StringComparison.Ordinal);
        Assert.Contains("HttpRequestException", warning.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', warning.Message);
        Assert.False(warning.HasStackTrace);

        // The stack is kept, at Debug, once; the later exports' failures are Debug lines of their own.
        Assert.Single(log.Entries, e => e.EventId.Id == 67 && e.Level == LogLevel.Debug && e.Exception is HttpRequestException);
        Assert.Equal(Exports - 1, log.Entries.Count(e => e.EventId.Id == 63 && e.Level == LogLevel.Debug));

        // The HTTP client factory's own logging is off for the exporter's client.
        Assert.DoesNotContain(log.Entries, e => e.Category.StartsWith("System.Net.Http.HttpClient", StringComparison.Ordinal));
        await host.StopAsync();
    }

    // Some receivers take their key in the URL's query (?api-key=...): every line that names the
    // endpoint names it as scheme://host:port/path, at every level, the query left out.
    [Fact]
    public async Task AnEndpointsQueryIsNotRepeatedInTheLog()
    {
        const string Secret = "s3cr3t-qu3ry-k3y";
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync();
        receiver.Enqueue([.. Enumerable.Repeat<OtlpFault>(new OtlpFault.CloseWithoutAnswer(), 5 * 2), new OtlpFault.PartialSuccess(3, string.Empty)]);
        var log = new CapturedLog();
        Uri endpoint = receiver.Url("/v1/metrics?api-key=" + Secret);
        using IHost host = await StartedHostAsync(endpoint, log);
        int start = log.Entries.Count;

        // Two exports fail (five attempts each), one is taken but for 3 points, one succeeds.
        await ExportAsync(host, times: 4);

        Assert.Equal(5 * 2 + 2, receiver.Requests.Count);
        List<CapturedLog.Entry> entries = [.. log.Entries.Skip(start)];
        Assert.Contains(entries, e => e.EventId.Id == 60);
        Assert.Contains(entries, e => e.EventId.Id == 63);
        Assert.Contains(entries, e => e.EventId.Id == 67);
        Assert.Contains(entries, e => e.EventId.Id == 61);
        Assert.Contains(entries, e => e.EventId.Id == 62);
        string shown = $"http://{endpoint.Authority}/v1/metrics";
        Assert.All(entries.Where(e => e.EventId.Id >= 60), e => Assert.Contains(shown, e.Message, StringComparison.Ordinal));
        Assert.DoesNotContain(entries, e => e.Message.Contains(Secret, StringComparison.Ordinal) || e.Message.Contains("api-key", StringComparison.Ordinal));
        Assert.DoesNotContain(entries, e => e.Exception?.ToString().Contains(Secret, StringComparison.Ordinal) == true);
        await host.StopAsync();
    }

    [Fact]
    public async Task RecoveryIsLoggedOnce()
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync();
        receiver.Enqueue([.. Enumerable.Repeat<OtlpFault>(new OtlpFault.CloseWithoutAnswer(), 5 * 3)]);
        var log = new CapturedLog();
        using IHost host = await StartedHostAsync(receiver.Url("/v1/metrics"), log);
        int start = log.Entries.Count;

        // Three exports fail (five attempts each), then three succeed.
        await ExportAsync(host, times: 6);

        Assert.Equal(5 * 3 + 3, receiver.Requests.Count);
        Assert.Collection(
            log.AtInformationOrAbove(start),
            failed => Assert.Equal((LogLevel.Warning, 60), (failed.Level, failed.EventId.Id)),
            recovered =>
            {
                Assert.Equal((LogLevel.Information, 62), (recovered.Level, recovered.EventId.Id));
                Assert.Contains("succeed again", recovered.Message, StringComparison.Ordinal);
            });
        Assert.DoesNotContain(log.AtInformationOrAbove(start), e => e.HasStackTrace);
        await host.StopAsync();
    }

    [Fact]
    public async Task AHealthyMinuteLogsNothingAtInformation()
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync();
        var log = new CapturedLog();
        using IHost host = await StartedHostAsync(receiver.Url("/v1/metrics"), log);
        int start = log.Entries.Count;

        await ExportAsync(host, times: 60);

        Assert.Equal(60, receiver.Requests.Count);
        Assert.Empty(log.AtInformationOrAbove(start));
        await host.StopAsync();
    }

    [Fact]
    public async Task ThePartialSuccessOfAnEmptyMessageSaysTheReceiverGaveNoReason()
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync();
        receiver.Enqueue(new OtlpFault.PartialSuccess(3, string.Empty));
        var log = new CapturedLog();
        using IHost host = await StartedHostAsync(receiver.Url("/v1/metrics"), log);
        int start = log.Entries.Count;

        await ExportAsync(host, times: 1);

        CapturedLog.Entry warning = Assert.Single(log.AtInformationOrAbove(start));
        Assert.Equal(61, warning.EventId.Id);
        Assert.Contains("rejected 3 data point(s) of an export (the receiver gave no reason).", warning.Message, StringComparison.Ordinal);
        await host.StopAsync();
    }

    // docs/otlp.md, "What it logs": event 61 (Warning) when the receiver rejected some points the
    // first time; 68 is a partial_success of 0 points with a message, a warning and no data lost.
    [Fact]
    public async Task RejectedPointsAfterAReceiversWarningAreLoggedAsAWarning()
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync();
        receiver.Enqueue(new OtlpFault.PartialSuccess(0, "attribute foo is deprecated"), new OtlpFault.PartialSuccess(3, "3 points had no value"));
        var log = new CapturedLog();
        using IHost host = await StartedHostAsync(receiver.Url("/v1/metrics"), log);
        int start = log.Entries.Count;

        await ExportAsync(host, times: 2);

        Assert.Contains(log.AtInformationOrAbove(start), e => e.EventId.Id == 68);
        CapturedLog.Entry rejected = Assert.Single(log.AtInformationOrAbove(start), e => e.EventId.Id != 68);
        Assert.Equal((LogLevel.Warning, 61), (rejected.Level, rejected.EventId.Id));
        Assert.Contains("rejected 3 data point(s)", rejected.Message, StringComparison.Ordinal);
        await host.StopAsync();
    }

    [Fact]
    public async Task TheExportersClientLoggingIsOffForItAlone()
    {
        var log = new CapturedLog();
        var services = new ServiceCollection();
        services.AddLogging(b => b.SetMinimumLevel(LogLevel.Trace).AddProvider(log));
        services.AddScalableMetrics();
        using ServiceProvider provider = services.BuildServiceProvider();
        var factory = provider.GetRequiredService<IHttpClientFactory>();

        // A request that fails before any connection: the factory logs its start for a client with logging.
        Uri nowhere = new($"http://127.0.0.1:{ClosedLoopbackPort()}/");
        _ = await Record.ExceptionAsync(() => factory.CreateClient(ScalableMetricsOtlpOptions.HttpClientName).GetAsync(nowhere));
        Assert.Empty(log.Entries);
        _ = await Record.ExceptionAsync(() => factory.CreateClient("team").GetAsync(nowhere));
        Assert.Contains(log.Entries, e => e.Category == "System.Net.Http.HttpClient.team.LogicalHandler");
    }

    // Exports driven one after another, as the timer would drive them an interval apart.
    private static async Task ExportAsync(IHost host, int times)
    {
        OtlpExportService service = OtlpPart.Of(host.Services)!.Service;
        for (int i = 0; i < times; i++)
        {
            await service.ExportAsync(CancellationToken.None);
        }
    }

    private static async Task<IHost> StartedHostAsync(Uri endpoint, CapturedLog log)
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?> { ["OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"] = endpoint.AbsoluteUri });
        builder.Logging.SetMinimumLevel(LogLevel.Trace).AddProvider(log);
        builder.Services.AddSingleton<TimeProvider>(new ImmediateTimeProvider());
        builder.AddScalableMetrics(o => o.AddOtlpExporter(otlp => otlp.ExportInterval = TimeSpan.FromHours(1)));
        IHost host = builder.Build();
        await host.StartAsync();
        return host;
    }

    private static int ClosedLoopbackPort()
    {
        var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        listener.Start();
        int port = ((System.Net.IPEndPoint)listener.LocalEndpoint).Port;
        listener.Stop();
        return port;
    }
}
