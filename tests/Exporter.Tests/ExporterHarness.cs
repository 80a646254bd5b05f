using System.Diagnostics.Metrics;
using System.Text;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// A real OpenTelemetry <see cref="MeterProvider"/> with a <see cref="PrometheusPullExporter"/>
/// and a meter of its own, named uniquely so that tests running in parallel do not see each
/// other's instruments.
/// </summary>
public sealed class ExporterHarness : IDisposable
{
    public ExporterHarness(string? meterVersion = null, Action<MeterProviderBuilder>? configure = null)
    {
        MeterName = "test." + Guid.NewGuid().ToString("N");
        Meter = new Meter(MeterName, meterVersion);
        Exporter = new PrometheusPullExporter();
        MeterProviderBuilder builder = Sdk.CreateMeterProviderBuilder()
            .AddMeter(MeterName)
            .AddReader(new BaseExportingMetricReader(Exporter));
        configure?.Invoke(builder);
        Provider = builder.Build();
    }

    public string MeterName { get; }

    public Meter Meter { get; }

    public PrometheusPullExporter Exporter { get; }

    public MeterProvider Provider { get; }

    public async Task<string> ScrapeAsync() => Encoding.UTF8.GetString(await Exporter.ScrapeAsync());

    /// <summary>An expected scrape: <paramref name="template"/> with "\n" line endings and SCOPE_NAME replaced by this harness's meter name.</summary>
    public string Expected(string template) =>
        template.ReplaceLineEndings("\n").Replace("SCOPE_NAME", MeterName, StringComparison.Ordinal);

    public void Dispose()
    {
        Provider.Dispose();
        Meter.Dispose();
    }
}
