using System.Diagnostics;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Sources;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Sources;

/// <summary>
/// A scrape writes counter and histogram lines in one piece, from what its writer keeps per series
/// between scrapes (<see cref="LabelBlockCache{TValue}"/>): in every format, scrape after scrape, as
/// series are added, with and without exemplars, a writer kept from scrape to scrape writes what a
/// new writer writes, and no two samples of one series.
/// </summary>
public sealed class KeptWriterExpositionTests
{
    public static TheoryData<PrometheusExpositionFormat, bool> FormatsAndExemplars => new()
    {
        { PrometheusExpositionFormat.Text, false },
        { PrometheusExpositionFormat.OpenMetrics, false },
        { PrometheusExpositionFormat.Protobuf, false },
        { PrometheusExpositionFormat.Text, true },
        { PrometheusExpositionFormat.OpenMetrics, true },
        { PrometheusExpositionFormat.Protobuf, true },
    };

    [Theory]
    [MemberData(nameof(FormatsAndExemplars))]
    public void AKeptWriterWritesWhatANewOneWrites(PrometheusExpositionFormat format, bool exemplars)
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = exemplars ? ExemplarFilter.TraceBased : ExemplarFilter.None });
        PartitionedCounter counter = registry.CreateCounter("requests", null, "Requests \"served\".");
        PartitionedCounter untagged = registry.CreateCounter("plain");
        PartitionedHistogram histogram = registry.CreateHistogram("latency", "s", null, [0.0001, 0.5, 1, 2.5, 1e6]);
        PartitionedHistogram negative = registry.CreateHistogram("offset", null, null, [-1, 0, 1]);
        var source = new RegistrySource(registry, "m", "1.0", NullLogger.Instance);
        ExpositionWriter kept = ExpositionFormat.Of(format).CreateWriter();

        for (int scrape = 0; scrape < 3; scrape++)
        {
            using (Activity activity = new Activity("t").SetIdFormat(ActivityIdFormat.W3C))
            {
                activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
                activity.Start();
                for (int i = 0; i < 5 + (10 * scrape); i++)
                {
                    counter.Add(i + 1, new KeyValuePair<string, object?>("route", $"/r{i}"), new("code", 200 + (i % 3)));
                    histogram.Record((i * 0.37) + (scrape * 1e-5), new KeyValuePair<string, object?>("route", $"/r{i % 7}"));
                }

                untagged.Add(long.MaxValue);
                negative.Record(-0.5);
                negative.Record(3);
            }

            byte[] written = Scrape(source, kept);
            Assert.Equal(Scrape(source, ExpositionFormat.Of(format).CreateWriter()), written);
            ExposedSeries.AssertNoneRepeated(format, written);
        }
    }

    private static byte[] Scrape(RegistrySource source, ExpositionWriter writer)
    {
        writer.Clear();
        source.Write(writer, new HashSet<string>(StringComparer.Ordinal));
        writer.WriteEnd();
        return writer.ToArray();
    }
}
