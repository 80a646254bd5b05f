using System.Diagnostics.Metrics;
using System.Text;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Cells;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.SelfMetrics;
using ScalableMetrics.Exporter.Prometheus.Sources;

namespace ScalableMetrics.Exporter.Tests.Prometheus.SelfMetrics;

/// <summary>
/// The self-metrics' registry written by a scrape: the very lines the hand-written families were
/// (the expected text below is what that writer wrote for the same registries), each series that
/// describes a registry labelled with that registry's scope, counts as whole numbers.
/// </summary>
public sealed class SelfMetricsExpositionTests
{
    [Fact]
    public async Task TheTextIsWhatTheHandWrittenFamiliesWere()
    {
        string prefix = "SelfText" + Guid.NewGuid().ToString("N");
        using var listened = new MeterListenerHost([prefix + ".*"], "app", () => new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 2 }), NullLogger.Instance);
        listened.Start();
        using var versioned = new Meter(prefix + ".A", "1.0");
        using var plain = new Meter(prefix + ".B");
        versioned.CreateCounter<long>("x").Add(1);
        Counter<long> y = plain.CreateCounter<long>("y");
        y.Add(1, new KeyValuePair<string, object?>("k", 1));
        y.Add(1, new KeyValuePair<string, object?>("k", 2));
        y.Add(1, new KeyValuePair<string, object?>("k", 3));
        y.Add(-1);
        plain.CreateUpDownCounter<long>("x.total").Add(1);

        // A limit of 1.5 million: a whole number a double would write as 1.5e+06.
        var hosted = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 1_500_000 });
        hosted.CreateCounter("c").Add(1);
        hosted.CreateGauge("g");
        var self = new SelfMetricsRegistry(hosted, "app", "2.0", listened);
        self.Durations.Record(ExpositionFormat.Text, TimeSpan.FromMilliseconds(12.5));
        self.Durations.Record(ExpositionFormat.Protobuf, TimeSpan.FromSeconds(3));
        var source = new RegistrySource(self.Registry, "app", "2.0", NullLogger.Instance, selfMetrics: true);

        string text = await WriteAsync(source, PrometheusExpositionFormat.Text);
        string openMetrics = await WriteAsync(source, PrometheusExpositionFormat.OpenMetrics);

        // Process-wide: none here unless a processor outside the start-up set added (read after the scrape).
        long overflowAdds = OverflowRegionAdds.Count;

        Assert.Equal(
            $$"""
            # HELP scalablemetrics_scrape_duration_seconds How long the last collection of each exposition format took.
            # TYPE scalablemetrics_scrape_duration_seconds gauge
            scalablemetrics_scrape_duration_seconds{otel_scope_name="app",otel_scope_version="2.0",format="text"} 0.0125
            scalablemetrics_scrape_duration_seconds{otel_scope_name="app",otel_scope_version="2.0",format="protobuf"} 3
            # HELP scalablemetrics_series The series each instrument keeps, its overflow series included.
            # TYPE scalablemetrics_series gauge
            scalablemetrics_series{otel_scope_name="app",otel_scope_version="2.0",instrument="c"} 1
            scalablemetrics_series{otel_scope_name="app",otel_scope_version="2.0",instrument="g"} 0
            scalablemetrics_series{otel_scope_name="{{prefix}}.A",otel_scope_version="1.0",instrument="x"} 1
            scalablemetrics_series{otel_scope_name="{{prefix}}.B",instrument="y"} 3
            # HELP scalablemetrics_series_limit The series each instrument keeps before new tag sets go to its overflow series.
            # TYPE scalablemetrics_series_limit gauge
            scalablemetrics_series_limit{otel_scope_name="app",otel_scope_version="2.0",instrument="c"} 1500000
            scalablemetrics_series_limit{otel_scope_name="app",otel_scope_version="2.0",instrument="g"} 1500000
            scalablemetrics_series_limit{otel_scope_name="{{prefix}}.A",otel_scope_version="1.0",instrument="x"} 2
            scalablemetrics_series_limit{otel_scope_name="{{prefix}}.B",instrument="y"} 2
            # HELP scalablemetrics_instruments_overflowing The instruments whose overflow series took measurements: past the series limit.
            # TYPE scalablemetrics_instruments_overflowing gauge
            scalablemetrics_instruments_overflowing{otel_scope_name="app",otel_scope_version="2.0"} 0
            scalablemetrics_instruments_overflowing{otel_scope_name="{{prefix}}.A",otel_scope_version="1.0"} 0
            scalablemetrics_instruments_overflowing{otel_scope_name="{{prefix}}.B"} 1
            # HELP scalablemetrics_overflow_region_adds_total Adds that found no region of their own (a processor outside the partitions chosen at start) and went atomically to the shared overflow region: exact, but contended.
            # TYPE scalablemetrics_overflow_region_adds_total counter
            scalablemetrics_overflow_region_adds_total{otel_scope_name="app",otel_scope_version="2.0"} {{overflowAdds}}
            # HELP scalablemetrics_removed_series_reclaimed_total Removed series whose memory went back to the arena once nothing could write them.
            # TYPE scalablemetrics_removed_series_reclaimed_total counter
            scalablemetrics_removed_series_reclaimed_total{otel_scope_name="app",otel_scope_version="2.0"} 0
            scalablemetrics_removed_series_reclaimed_total{otel_scope_name="{{prefix}}.A",otel_scope_version="1.0"} 0
            scalablemetrics_removed_series_reclaimed_total{otel_scope_name="{{prefix}}.B"} 0
            # HELP scalablemetrics_removed_series_late_adds_total What was added to removed series after their last export (a counter's value, a histogram's records, 1 for a gauge set to another value), found at their reclaim: counted here, not exported.
            # TYPE scalablemetrics_removed_series_late_adds_total counter
            scalablemetrics_removed_series_late_adds_total{otel_scope_name="app",otel_scope_version="2.0"} 0
            scalablemetrics_removed_series_late_adds_total{otel_scope_name="{{prefix}}.A",otel_scope_version="1.0"} 0
            scalablemetrics_removed_series_late_adds_total{otel_scope_name="{{prefix}}.B"} 0
            # HELP scalablemetrics_dropped_measurements_total Measurements of listened meters (AddMeter) dropped: invalid values or tags.
            # TYPE scalablemetrics_dropped_measurements_total counter
            scalablemetrics_dropped_measurements_total{otel_scope_name="app",otel_scope_version="2.0"} 1
            # HELP scalablemetrics_refused_instruments_total Instruments of listened meters (AddMeter) refused: their exported names meet another meter's instrument of another kind or unit.
            # TYPE scalablemetrics_refused_instruments_total counter
            scalablemetrics_refused_instruments_total{otel_scope_name="app",otel_scope_version="2.0"} 1

            """,
            text);
        Assert.Contains($"\nscalablemetrics_series{{otel_scope_name=\"{prefix}.B\",instrument=\"y\"}} 3\n", openMetrics);
        Assert.Contains("\nscalablemetrics_scrape_duration_seconds{otel_scope_name=\"app\",otel_scope_version=\"2.0\",format=\"protobuf\"} 3.0\n", openMetrics);
        Assert.Contains("\nscalablemetrics_dropped_measurements_total{otel_scope_name=\"app\",otel_scope_version=\"2.0\"} 1\n", openMetrics);
        Assert.DoesNotContain("_created", openMetrics);
    }

    private static async Task<string> WriteAsync(RegistrySource source, PrometheusExpositionFormat format)
    {
        ExpositionWriter writer = ExpositionFormat.Of(format).CreateWriter();
        writer.Clear(new byte[1024]);
        await source.WriteAsync(writer, new HashSet<string>(StringComparer.Ordinal), CancellationToken.None);
        writer.WriteEnd();
        return Encoding.UTF8.GetString(writer.Detach());
    }
}
