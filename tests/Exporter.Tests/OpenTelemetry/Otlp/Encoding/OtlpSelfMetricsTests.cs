using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using OpenTelemetry.Proto.Collector.Metrics.V1;
using OpenTelemetry.Proto.Metrics.V1;
using static ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.OtlpDecoded;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// The library's own metrics (<see cref="ScalableMetricsOptions.ExportSelfMetrics"/>) in an OTLP
/// export, as a scrape carries them: a scope of their own, under the hosted registry's, whose
/// series name the scope and instrument they describe by attributes.
/// </summary>
public sealed class OtlpSelfMetricsTests
{
    private const string Scope = "ScalableMetrics";

    [Fact]
    public async Task AnExportCarriesTheSelfMetrics()
    {
        await using OtlpTestReceiver receiver = await OtlpTestReceiver.StartAsync();

        ExportMetricsServiceRequest request = await ExportOnceAsync(receiver, selfMetrics: true);

        ScopeMetrics self = Assert.Single(request.ResourceMetrics.SelectMany(r => r.ScopeMetrics), s => s.Metrics.Any(m => m.Name == "scalablemetrics.series"));
        Assert.Equal(Scope, self.Scope.Name);
        Assert.Equal(3, Point(Metric(request, "scalablemetrics.series").Gauge.DataPoints, $"instrument=s:self.items,scope.name=s:{Scope}").AsInt);
        Assert.Equal(2, Point(Metric(request, "scalablemetrics.series.limit").Gauge.DataPoints, $"instrument=s:self.items,scope.name=s:{Scope}").AsInt);
        Assert.Equal(1, Point(Metric(request, "scalablemetrics.instruments.overflowing").Gauge.DataPoints, $"scope.name=s:{Scope}").AsInt);
        Metric dropped = Metric(request, "scalablemetrics.dropped.measurements");
        Assert.True(dropped.Sum.IsMonotonic);
        Assert.Equal(0, Assert.Single(dropped.Sum.DataPoints).AsInt);
        Metric overflowAdds = Metric(request, "scalablemetrics.overflow_region.adds");
        Assert.True(overflowAdds.Sum.IsMonotonic);
        Assert.InRange(Assert.Single(overflowAdds.Sum.DataPoints).AsInt, 0, ScalableMetrics.Cells.OverflowRegionAdds.Count);
        Assert.Equal("{series}", Metric(request, "scalablemetrics.series").Unit);
    }

    [Fact]
    public async Task TurnedOffAnExportCarriesNone()
    {
        await using OtlpTestReceiver receiver = await OtlpTestReceiver.StartAsync();

        ExportMetricsServiceRequest request = await ExportOnceAsync(receiver, selfMetrics: false);

        Assert.True(HasMetric(request, "self.items"));
        Assert.DoesNotContain(request.ResourceMetrics.SelectMany(r => r.ScopeMetrics).SelectMany(s => s.Metrics), m => m.Name.StartsWith("scalablemetrics.", StringComparison.Ordinal));
    }

    // A host whose one export is the final one, when it stops, after an instrument of three tag
    // sets (two series and the overflow series, at a limit of two) was written.
    private static async Task<ExportMetricsServiceRequest> ExportOnceAsync(OtlpTestReceiver receiver, bool selfMetrics)
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.AddScalableMetrics(o =>
        {
            o.ExportSelfMetrics = selfMetrics;
            o.Registry.MaxSeriesPerInstrument = 2;
            o.AddOtlpExporter(otlp =>
            {
                otlp.Endpoint = receiver.MetricsEndpoint;
                otlp.ExportInterval = TimeSpan.FromHours(1);
            });
        });
        using IHost host = builder.Build();
        await host.StartAsync();
        PartitionedCounter items = host.Services.GetRequiredService<MetricRegistry>().CreateCounter("self.items");
        items.Add(1, new KeyValuePair<string, object?>("k", "a"));
        items.Add(1, new KeyValuePair<string, object?>("k", "b"));
        items.Add(1, new KeyValuePair<string, object?>("k", "c"));

        await host.StopAsync();

        return Assert.Single(receiver.DecodedRequests());
    }
}
