using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Transport;

/// <summary>
/// OTLP over TLS to a receiver of a private CA that requires a client certificate (certificates
/// made at test time), over HTTP and gRPC, with the certificates from the specification's variables
/// or the options; one export each, to 127.0.0.1.
/// </summary>
public sealed class OtlpTlsTests : IDisposable
{
    private readonly TestCertificates _certificates = TestCertificates.Create();

    public void Dispose() => _certificates.Dispose();

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task PushesToAReceiverThatRequiresAClientCertificate(bool grpc)
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync(http2: grpc, tls: _certificates, requireClientCertificate: true);
        var log = new CapturedLog();
        using IHost host = Host(log, new Dictionary<string, string?>
        {
            ["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.BaseAddress.AbsoluteUri,
            ["OTEL_EXPORTER_OTLP_PROTOCOL"] = grpc ? "grpc" : "http/protobuf",
            ["OTEL_EXPORTER_OTLP_CERTIFICATE"] = _certificates.CaFile,
            ["OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"] = _certificates.ClientCertFile,
            ["OTEL_EXPORTER_OTLP_CLIENT_KEY"] = _certificates.ClientKeyFile,
        });
        await host.StartAsync();

        await OtlpPart.Of(host.Services)!.Service.ExportAsync(CancellationToken.None);

        FaultInjectedRequest request = Assert.Single(receiver.Requests);
        Assert.Equal(grpc ? "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export" : "/v1/metrics", request.Path);
        Assert.DoesNotContain(log.Entries, e => e.Level >= LogLevel.Warning);
        await host.StopAsync();
    }

    [Fact]
    public async Task WithoutAClientCertificateTheExportFailsAndIsLogged()
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync(tls: _certificates, requireClientCertificate: true);
        var log = new CapturedLog();
        using IHost host = Host(log, new Dictionary<string, string?> { ["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.BaseAddress.AbsoluteUri }, o => o.CertificateFile = _certificates.CaFile);
        await host.StartAsync();

        await OtlpPart.Of(host.Services)!.Service.ExportAsync(CancellationToken.None);

        Assert.Empty(receiver.Requests);
        Assert.Single(log.Entries, e => e.Level == LogLevel.Warning && e.EventId.Id == 60);
        await host.StopAsync();
    }

    [Fact]
    public async Task AReceiverOfAnotherAuthorityIsRefused()
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync(tls: _certificates);
        using var other = TestCertificates.Create("Other");
        var log = new CapturedLog();
        using IHost host = Host(log, new Dictionary<string, string?> { ["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.BaseAddress.AbsoluteUri }, o => o.CertificateFile = other.CaFile);
        await host.StartAsync();

        await OtlpPart.Of(host.Services)!.Service.ExportAsync(CancellationToken.None);

        Assert.Empty(receiver.Requests);
        CapturedLog.Entry warning = Assert.Single(log.Entries, e => e.Level == LogLevel.Warning && e.EventId.Id == 60);
        Assert.Contains("SSL", warning.Message, StringComparison.OrdinalIgnoreCase);
        await host.StopAsync();
    }

    // ScalableMetricsOtlpOptions.HttpClientName: "CertificateFile and ClientCertificateFile are set on
    // its primary handler", an application's own included (a proxy, say), whether it registers it
    // before AddScalableMetrics or after.
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task AnOwnPrimaryHandlerKeepsTheCertificatesWhicheverIsRegisteredFirst(bool handlerFirst)
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync(tls: _certificates, requireClientCertificate: true);
        var log = new CapturedLog();
        using IHost host = Host(
            log,
            new Dictionary<string, string?>
            {
                ["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.BaseAddress.AbsoluteUri,
                ["OTEL_EXPORTER_OTLP_CERTIFICATE"] = _certificates.CaFile,
                ["OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"] = _certificates.ClientCertFile,
                ["OTEL_EXPORTER_OTLP_CLIENT_KEY"] = _certificates.ClientKeyFile,
            },
            ownClient: services => services.AddHttpClient(ScalableMetricsOtlpOptions.HttpClientName)
                .ConfigurePrimaryHttpMessageHandler(() => new SocketsHttpHandler { UseProxy = false }),
            ownClientFirst: handlerFirst);
        await host.StartAsync();

        await OtlpPart.Of(host.Services)!.Service.ExportAsync(CancellationToken.None);

        Assert.DoesNotContain(log.Entries, e => e.Level >= LogLevel.Warning);
        Assert.Single(receiver.Requests);
        await host.StopAsync();
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task AnOwnPrimaryHandlerThatTakesNoCertificatesStopsTheStartNamingTheOptions(bool handlerFirst)
    {
        using IHost host = Host(
            new CapturedLog(),
            new Dictionary<string, string?> { ["OTEL_EXPORTER_OTLP_CERTIFICATE"] = _certificates.CaFile },
            ownClient: services => services.AddHttpClient(ScalableMetricsOtlpOptions.HttpClientName)
                .ConfigurePrimaryHttpMessageHandler(() => new NoTlsHandler()),
            ownClientFirst: handlerFirst);

        InvalidOperationException error = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync());

        Assert.Contains("ScalableMetricsOtlpOptions.CertificateFile cannot be set", error.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(NoTlsHandler), error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TheMetricsVariablesWinOverTheGeneralOnesAndTheSectionOverBoth()
    {
        using var other = TestCertificates.Create("Other");
        ScalableMetricsOtlpOptions fromVariables = Options(new Dictionary<string, string?>
        {
            ["OTEL_EXPORTER_OTLP_CERTIFICATE"] = other.CaFile,
            ["OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE"] = _certificates.CaFile,
            ["OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"] = other.ClientCertFile,
            ["OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE"] = _certificates.ClientCertFile,
            ["OTEL_EXPORTER_OTLP_CLIENT_KEY"] = other.ClientKeyFile,
            ["OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY"] = _certificates.ClientKeyFile,
        });
        ScalableMetricsOtlpOptions fromSection = Options(new Dictionary<string, string?>
        {
            ["OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE"] = other.CaFile,
            ["ScalableMetrics:Otlp:CertificateFile"] = _certificates.CaFile,
        });

        Assert.Equal((_certificates.CaFile, _certificates.ClientCertFile, _certificates.ClientKeyFile), (fromVariables.CertificateFile, fromVariables.ClientCertificateFile, fromVariables.ClientKeyFile));
        Assert.Equal(_certificates.CaFile, fromSection.CertificateFile);
    }

    [Theory]
    [InlineData("OTEL_EXPORTER_OTLP_CERTIFICATE", "missing.pem", "OTEL_EXPORTER_OTLP_CERTIFICATE 'missing.pem' is not a file that exists")]
    [InlineData("OTEL_EXPORTER_OTLP_CLIENT_KEY", "{key}", "ClientKeyFile is set without ClientCertificateFile")]
    [InlineData("OTEL_EXPORTER_OTLP_CERTIFICATE", "{key}", "CertificateFile")]
    [InlineData("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "{ca}", "ClientCertificateFile")]
    public void AFileThatDoesNotLoadStopsTheStartNamingIt(string variable, string value, string named)
    {
        string path = value.Replace("{key}", _certificates.ClientKeyFile, StringComparison.Ordinal).Replace("{ca}", _certificates.CaFile, StringComparison.Ordinal);

        OptionsValidationException failed = Assert.Throws<OptionsValidationException>(() => Options(new Dictionary<string, string?> { [variable] = path }));

        Assert.Contains(named, failed.Message, StringComparison.Ordinal);
    }

    private static ScalableMetricsOtlpOptions Options(Dictionary<string, string?> settings)
    {
        using IHost host = Host(new CapturedLog(), settings);
        return OtlpPart.Of(host.Services)!.Options;
    }

    private static IHost Host(
        CapturedLog log,
        Dictionary<string, string?> settings,
        Action<ScalableMetricsOtlpOptions>? configure = null,
        Action<IServiceCollection>? ownClient = null,
        bool ownClientFirst = false)
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(settings);
        builder.Logging.SetMinimumLevel(LogLevel.Trace).AddProvider(log);
        builder.Services.AddSingleton<TimeProvider>(new ImmediateTimeProvider());
        if (ownClientFirst)
        {
            ownClient?.Invoke(builder.Services);
        }

        builder.AddScalableMetrics(o => o.AddOtlpExporter(otlp =>
        {
            otlp.ExportInterval = TimeSpan.FromHours(1);
            configure?.Invoke(otlp);
        }));
        if (!ownClientFirst)
        {
            ownClient?.Invoke(builder.Services);
        }

        return builder.Build();
    }

    /// <summary>A primary handler of a type the exporter cannot set certificates on (a test server's, say).</summary>
    private sealed class NoTlsHandler : HttpMessageHandler
    {
        protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken) =>
            Task.FromResult(new HttpResponseMessage(System.Net.HttpStatusCode.OK));
    }
}
