using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using ScalableMetrics.Exporter.Hosting;
using ScalableMetrics.Exporter.Prometheus.Sources;

namespace ScalableMetrics.Exporter.Tests.Hosting;

/// <summary>
/// The parts other packages turn on from the options (<c>UseOpenTelemetry()</c>, say): built once
/// per container, started and stopped with the host (stopped in the reverse order), disposed with
/// the container.
/// </summary>
public sealed class ScalableMetricsPartsTests
{
    [Fact]
    public async Task StoppingAHostWhoseStartFailedStopsWhatStartedAndThrowsNothing()
    {
        // A setting the start refuses (a header value HttpClient cannot send): the parts are never built.
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.AddScalableMetrics(o => o.AddOtlpExporter(otlp =>
        {
            otlp.Endpoint = new Uri("http://127.0.0.1:9/v1/metrics");
            otlp.Headers["x-tenant"] = "München";
        }));
        using IHost host = builder.Build();
        Assert.IsType<OptionsValidationException>(await Record.ExceptionAsync(() => host.StartAsync()));

        Exception? stopped = await Record.ExceptionAsync(() => host.StopAsync());

        Assert.Null(stopped);
    }

    [Fact]
    public async Task PartsAreBuiltOnceStartedStoppedInReverseAndDisposedWithTheContainer()
    {
        var events = new List<string>();
        var services = new ServiceCollection();
        services.AddScalableMetrics(o =>
        {
            o.AddFeature(new RecordingFeature("a", events));
            o.AddFeature(new RecordingFeature("b", events));
        });
        ServiceProvider provider = services.BuildServiceProvider(validateScopes: true);
        IHostedService hosted = Assert.Single(provider.GetServices<IHostedService>());

        await hosted.StartAsync(CancellationToken.None);
        _ = provider.GetRequiredService<PrometheusScraper>();
        await hosted.StopAsync(CancellationToken.None);
        await provider.DisposeAsync();

        Assert.Equal(["built a", "built b", "started a", "started b", "stopped b", "stopped a", "disposed b", "disposed a"], events);
    }

    private sealed class RecordingFeature(string name, List<string> events) : IScalableMetricsFeature
    {
        public IScalableMetricsPart Build(IServiceProvider services)
        {
            events.Add("built " + name);
            return new RecordingPart(name, events);
        }
    }

    private sealed class RecordingPart(string name, List<string> events) : IScalableMetricsPart
    {
        public IScrapeSource? ScrapeSource => null;

        public Task StartAsync(CancellationToken cancellationToken)
        {
            events.Add("started " + name);
            return Task.CompletedTask;
        }

        public Task StopAsync(CancellationToken cancellationToken)
        {
            events.Add("stopped " + name);
            return Task.CompletedTask;
        }

        public void Dispose() => events.Add("disposed " + name);
    }
}
