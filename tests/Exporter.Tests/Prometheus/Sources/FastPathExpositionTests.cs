using System.Diagnostics;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Sources;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Sources;

/// <summary>
/// A scrape writes counter and histogram lines in one piece, straight from kept read arrays, when
/// its writer checks no duplicates (as in production); the tests check duplicates on every other
/// writer, so this one compares the two: in every format, the same bytes, scrape after scrape,
/// as series are added, with and without exemplars.
/// </summary>
public sealed class FastPathExpositionTests
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
    public void OnePieceLinesReadAsTheCheckedWritersLines(PrometheusExpositionFormat format, bool exemplars)
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = exemplars ? ExemplarFilter.TraceBased : ExemplarFilter.None });
        PartitionedCounter counter = registry.CreateCounter("requests", null, "Requests \"served\".");
        PartitionedCounter untagged = registry.CreateCounter("plain");
        PartitionedHistogram histogram = registry.CreateHistogram("latency", "s", null, [0.0001, 0.5, 1, 2.5, 1e6]);
        PartitionedHistogram negative = registry.CreateHistogram("offset", null, null, [-1, 0, 1]);
        var source = new RegistrySource(registry, "m", "1.0", NullLogger.Instance);
        var fast = Writer(format, checksDuplicates: false);
        var checkedWriter = Writer(format, checksDuplicates: true);

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

            Assert.Equal(Scrape(source, checkedWriter), Scrape(source, fast));
        }
    }

    private static ExpositionWriter Writer(PrometheusExpositionFormat format, bool checksDuplicates) => format switch
    {
        PrometheusExpositionFormat.Text => new TextFormatWriter { ChecksDuplicates = checksDuplicates },
        PrometheusExpositionFormat.OpenMetrics => new OpenMetricsWriter { ChecksDuplicates = checksDuplicates },
        _ => new ProtobufWriter { ChecksDuplicates = checksDuplicates },
    };

    private static byte[] Scrape(RegistrySource source, ExpositionWriter writer)
    {
        writer.Clear();
        source.Write(writer, new HashSet<string>(StringComparer.Ordinal));
        writer.WriteEnd();
        return writer.ToArray();
    }
}
