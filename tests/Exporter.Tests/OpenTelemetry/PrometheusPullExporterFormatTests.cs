using System.Text;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry;

/// <summary>
/// A collection of the <c>MeterProvider</c> is written straight into the writer of the scrape
/// that waits for it, in that scrape's format, whichever call started the collection.
/// </summary>
public sealed class PrometheusPullExporterFormatTests
{
    private static readonly PrometheusExpositionFormat[] s_formats =
        [PrometheusExpositionFormat.OpenMetrics, PrometheusExpositionFormat.Protobuf, PrometheusExpositionFormat.Text, PrometheusExpositionFormat.OpenMetrics];

    [Fact]
    public void EachCollectionIsWrittenInTheFormatAskedFor()
    {
        using var harness = new ExporterHarness();
        harness.Meter.CreateCounter<long>("requests").Add(3);

        foreach (PrometheusExpositionFormat format in s_formats)
        {
            (ExpositionWriter output, HashSet<string> taken) = Collect(harness.Exporter, format);

            Assert.Equal(format, output.Format);
            Assert.Contains("requests_total", taken);
            Assert.Equal(1, FamiliesIn(output));
        }
    }

    [Fact]
    public void ACollectionAfterAForceFlushIsWrittenInItsOwnFormat()
    {
        using var harness = new ExporterHarness();
        harness.Meter.CreateCounter<long>("requests").Add(1);
        Collect(harness.Exporter, PrometheusExpositionFormat.Protobuf);
        Assert.True(harness.Provider.ForceFlush());

        (ExpositionWriter text, _) = Collect(harness.Exporter, PrometheusExpositionFormat.Text);

        Assert.Equal(PrometheusExpositionFormat.Text, text.Format);
        Assert.Contains("requests_total{otel_scope_name=\"" + harness.MeterName + "\"} 1\n", Encoding.UTF8.GetString(text.ToArray()), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ACollectionThatJoinsAForceFlushIsWrittenByItsExportInTheScrapesFormat()
    {
        using var harness = new ExporterHarness();
        harness.Meter.CreateCounter<long>("requests").Add(1);
        using var blocked = new ManualResetEventSlim();
        using var released = new ManualResetEventSlim(initialState: true);
        harness.Meter.CreateObservableGauge("blocking", () =>
        {
            if (!released.IsSet)
            {
                blocked.Set();
                released.Wait(TimeSpan.FromSeconds(10));
            }

            return 1;
        });
        Collect(harness.Exporter, PrometheusExpositionFormat.Text);

        // The flush's collection stops in a callback, before its export.
        released.Reset();
        Task<bool> flush = Task.Run(() => harness.Provider.ForceFlush());
        Assert.True(blocked.Wait(TimeSpan.FromSeconds(10)));
        Task<(ExpositionWriter Output, HashSet<string> Taken)> openMetrics = Task.Run(() => Collect(harness.Exporter, PrometheusExpositionFormat.OpenMetrics));

        // Time for the scrape's collection to join the flush's, which it then waits for.
        await Task.Delay(200);
        released.Set();

        Assert.True(await flush);
        (ExpositionWriter output, HashSet<string> taken) = await openMetrics;
        Assert.Equal(PrometheusExpositionFormat.OpenMetrics, output.Format);
        Assert.Contains("requests_total", taken);
        Assert.Equal(2, FamiliesIn(output));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(6)]
    [InlineData(50)]
    public void ACollectionHandedBackAfterItEndedIsNotCountedAsAFailure(int handedBack)
    {
        // OpenTelemetry's reader forgets a collection only after releasing the calls that waited
        // for it: a ForceFlush's collection, which exported before the scrape's writer was set,
        // can be handed back, already ended, to the calls a scrape makes right after (true,
        // nothing exported), as often as the reader's thread is not scheduled; as many as a
        // scrape's three attempts made it fail.
        using var exporter = new PrometheusPullExporter();
        int calls = 0;
        exporter.Collect = _ =>
        {
            if (++calls > handedBack)
            {
                exporter.Export(new Batch<Metric>([], 0));
            }

            return true;
        };

        Collect(exporter, PrometheusExpositionFormat.OpenMetrics);

        Assert.Equal(handedBack + 1, calls);
    }

    [Fact]
    public void AFamilyTheScrapeAlreadyWroteIsLeftOutAndReported()
    {
        using var harness = new ExporterHarness();
        harness.Meter.CreateCounter<long>("requests").Add(1);
        harness.Meter.CreateCounter<long>("errors").Add(1);
        ExpositionWriter output = ExpositionFormat.Of(PrometheusExpositionFormat.Text).CreateWriter();
        HashSet<string> taken = new(StringComparer.Ordinal) { "requests_total" };
        var reported = new List<string>();

        harness.Exporter.WriteCollection(output, taken, reported.Add);

        Assert.Equal(["requests_total"], reported);
        string text = Encoding.UTF8.GetString(output.ToArray());
        Assert.DoesNotContain("requests_total", text, StringComparison.Ordinal);
        Assert.Contains("errors_total{", text, StringComparison.Ordinal);
        Assert.Contains("errors_total", taken);
    }

    [Fact]
    public void AnotherMetersCountersAndHistogramsCarryTheirPointsStartAsCreatedTimestamp()
    {
        using var harness = new ExporterHarness();
        DateTimeOffset before = DateTimeOffset.UtcNow.AddSeconds(-1);
        harness.Meter.CreateCounter<long>("requests").Add(3);
        harness.Meter.CreateHistogram<double>("latency", "s").Record(0.5);
        harness.Meter.CreateUpDownCounter<long>("queue").Add(2);

        (ExpositionWriter output, _) = Collect(harness.Exporter, PrometheusExpositionFormat.Protobuf);

        var families = new Dictionary<string, Io.Prometheus.Client.MetricFamily>(StringComparer.Ordinal);
        using (var stream = new MemoryStream(output.ToArray()))
        {
            while (stream.Position < stream.Length)
            {
                Io.Prometheus.Client.MetricFamily family = Io.Prometheus.Client.MetricFamily.Parser.ParseDelimitedFrom(stream);
                families.Add(family.Name, family);
            }
        }

        // OpenTelemetry's point start (its metric stream's, for a cumulative point): known, so written, and not in the future.
        Io.Prometheus.Client.Metric counter = Assert.Single(families["requests_total"].Metric);
        Io.Prometheus.Client.Metric histogram = Assert.Single(families["latency_seconds"].Metric);
        Assert.Equal(3, counter.Counter.Value);
        Assert.InRange(counter.Counter.CreatedTimestamp.ToDateTimeOffset(), before.AddMinutes(-5), DateTimeOffset.UtcNow);
        Assert.InRange(histogram.Histogram.CreatedTimestamp.ToDateTimeOffset(), before.AddMinutes(-5), DateTimeOffset.UtcNow);
        Assert.Equal(2, Assert.Single(families["queue"].Metric).Gauge.Value);
    }

    private static (ExpositionWriter Output, HashSet<string> Taken) Collect(PrometheusPullExporter exporter, PrometheusExpositionFormat format)
    {
        ExpositionWriter output = ExpositionFormat.Of(format).CreateWriter();
        var taken = new HashSet<string>(StringComparer.Ordinal);
        exporter.WriteCollection(output, taken, family => Assert.Fail($"{family} was reported taken"));
        return (output, taken);
    }

    // The families written: HELP-less TYPE lines in the text formats, delimited MetricFamily messages in protobuf.
    private static int FamiliesIn(ExpositionWriter output)
    {
        byte[] bytes = output.ToArray();
        if (output.Format != PrometheusExpositionFormat.Protobuf)
        {
            return Encoding.UTF8.GetString(bytes).Split('\n').Count(line => line.StartsWith("# TYPE ", StringComparison.Ordinal));
        }

        int families = 0;
        for (int at = 0; at < bytes.Length; families++)
        {
            ulong length = 0;
            int shift = 0;
            byte b;
            do
            {
                b = bytes[at++];
                length |= (ulong)(b & 0x7F) << shift;
                shift += 7;
            }
            while ((b & 0x80) != 0);
            at += (int)length;
        }

        return families;
    }
}
