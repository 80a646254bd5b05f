using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Cells;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.SelfMetrics;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Tests.Prometheus.SelfMetrics;

/// <summary>
/// The library's own registry (<see cref="SelfMetricsRegistry"/>): its instruments take the names
/// every other registry refuses, and their callbacks run at once, as a scrape's and an OTLP
/// export's collections may. What a scrape writes of them is in <c>SelfMetricsSourceTests</c> and
/// <see cref="SelfMetricsExpositionTests"/>.
/// </summary>
public sealed class SelfMetricsRegistryTests
{
    private const string Scope = "ScalableMetrics";

    [Fact]
    public void TheLibrarysRegistryTakesEveryNameItKeepsAndNoOther()
    {
        using var listened = new MeterListenerHost(["self.names.*"], Scope, () => new MetricRegistry(), NullLogger.Instance);
        var self = new SelfMetricsRegistry(new MetricRegistry(), Scope, null, listened);

        string[] families = [.. self.Registry.Instruments.Select(static i => ExportedFamily.For(i).TextName)];
        Assert.Equal(
            [
                "scalablemetrics_scrape_duration_seconds",
                "scalablemetrics_series",
                "scalablemetrics_series_limit",
                "scalablemetrics_instruments_overflowing",
                "scalablemetrics_overflow_region_adds_total",
                "scalablemetrics_removed_series_reclaimed_total",
                "scalablemetrics_removed_series_late_adds_total",
                "scalablemetrics_dropped_measurements_total",
                "scalablemetrics_refused_instruments_total",
            ],
            families);
        Assert.All(self.Registry.Instruments.SelectMany(static i => ExportedFamily.For(i).ReservedNames), static name => Assert.True(SelfMetricNames.Contains(name), name));
    }

    [Fact]
    public void TheOverflowRegionCountFollowsTheAddsThatGoThere()
    {
        // Adds counted as they go to an overflow region (RestartableWritePath's out-of-line adds
        // count each so, shown in the core's tests) move what the self-metric reports.
        var self = new SelfMetricsRegistry(new MetricRegistry(), Scope, null, listened: null);
        ObservableInstrument adds = Observable(self, "scalablemetrics.overflow_region.adds");
        double before = Assert.Single(adds.Collect()).Value;
        for (int i = 0; i < 7; i++)
        {
            OverflowRegionAdds.Increment();
        }

        double after = Assert.Single(adds.Collect()).Value;
        Assert.InRange(after - before, 7, double.MaxValue);
        Assert.Equal("{add}", adds.Unit);
    }

    [Fact]
    public async Task CallbacksRunAtOnceWhileTheRegistryGrows()
    {
        var hosted = new MetricRegistry();
        var self = new SelfMetricsRegistry(hosted, Scope, null, listened: null);
        ObservableInstrument series = Observable(self, "scalablemetrics.series");
        ObservableInstrument limits = Observable(self, "scalablemetrics.series.limit");
        ObservableInstrument overflowing = Observable(self, "scalablemetrics.instruments.overflowing");
        const int Instruments = 300;

        Task create = Task.Run(() =>
        {
            for (int i = 0; i < Instruments; i++)
            {
                hosted.CreateCounter("grows." + i).Add(1);
            }
        });
        Task[] readers = [.. new[] { series, limits, overflowing }.Select(instrument => Task.Run(() =>
        {
            while (!create.IsCompleted)
            {
                Assert.All(instrument.Collect(), static reading => Assert.True(reading.Value is 0 or 1 or MetricRegistryOptions.DefaultMaxSeriesPerInstrument));
            }
        }))];
        await Task.WhenAll([create, .. readers]);

        IReadOnlyList<DoubleReading> counts = series.Collect();
        Assert.Equal(Instruments, counts.Count);
        Assert.All(counts, static reading => Assert.Equal(1, reading.Value));
        Assert.Equal(Instruments, limits.Collect().Count);
        Assert.Equal(0, Assert.Single(overflowing.Collect()).Value);
    }

    private static ObservableInstrument Observable(SelfMetricsRegistry self, string name) =>
        (ObservableInstrument)Assert.Single(self.Registry.Instruments, i => i.Name == name);
}
