using System.Diagnostics;
using System.Text;
using System.Text.RegularExpressions;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Sources;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Sources;

/// <summary>
/// The text formats' scrape of a registry of the kinds the source once wrote from a reading per
/// series (exponential histograms, double counters, up-down counters, gauges) against golden text
/// (<c>Golden/readinto-*.txt</c>, embedded) captured from those readings before the source read
/// them in place: the same lines, byte for byte, from the read in place. Series with exemplars,
/// whose trace ids and times differ from run to run, against what their readings write.
/// </summary>
/// <remarks>
/// OpenMetrics' <c>_created</c> values are the instruments' creation times, so they are masked on
/// both sides. On a mismatch the text written is saved beside the test's output (the message names the file).
/// </remarks>
public sealed partial class ReadIntoExpositionTests
{
    public static TheoryData<PrometheusExpositionFormat> TextFormats =>
        [PrometheusExpositionFormat.Text, PrometheusExpositionFormat.OpenMetrics];

    [Theory]
    [MemberData(nameof(TextFormats))]
    public void AScrapeWritesTheGoldenText(PrometheusExpositionFormat format)
    {
        // The golden OpenMetrics text has the _created samples, asked for: the default leaves them out (below).
        var source = new RegistrySource(Registry(), "golden.scope", "1.2.3", NullLogger.Instance);
        ExpositionWriter writer = ExpositionFormat.Of(format).CreateWriter(openMetricsCreatedSamples: true);

        string first = Scrape(source, writer);
        string second = Scrape(source, writer);

        Assert.Equal(first, second);
        ExposedSeries.AssertNoneRepeated(format, Encoding.UTF8.GetBytes(second));
        AssertGolden(format == PrometheusExpositionFormat.Text ? "readinto-text.txt" : "readinto-openmetrics.txt", second);
    }

    [Fact]
    public void TheDefaultOpenMetricsScrapeIsTheGoldenTextWithoutItsCreatedSamples()
    {
        var source = new RegistrySource(Registry(), "golden.scope", "1.2.3", NullLogger.Instance);
        string withCreated = Scrape(source, ExpositionFormat.OpenMetrics.CreateWriter(openMetricsCreatedSamples: true));

        string byDefault = Scrape(source, ExpositionFormat.OpenMetrics.CreateWriter());

        Assert.Contains("_created", withCreated, StringComparison.Ordinal);
        Assert.Equal(CreatedLine().Replace(withCreated, string.Empty), byDefault);
    }

    public static TheoryData<PrometheusExpositionFormat> Formats =>
        [PrometheusExpositionFormat.Text, PrometheusExpositionFormat.OpenMetrics, PrometheusExpositionFormat.Protobuf];

    [Theory]
    [MemberData(nameof(Formats))]
    public void SeriesWithExemplarsAreWrittenAsTheirReadingsAre(PrometheusExpositionFormat format)
    {
        // Exemplars carry trace ids and times of their own: the expected bytes are those the writer
        // writes from the instruments' readings (what the source wrote before it read in place).
        var registry = new MetricRegistry(new MetricRegistryOptions { ExemplarFilter = ExemplarFilter.TraceBased });
        PartitionedHistogram latency = registry.CreateHistogram("latency", "s", "Latency.", [0.1, 1, 10]);
        PartitionedDoubleCounter bytes = registry.CreateDoubleCounter("bytes", "By");
        using (Activity activity = new Activity("t").SetIdFormat(ActivityIdFormat.W3C))
        {
            activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
            activity.Start();
            for (int i = 0; i < 40; i++)
            {
                latency.Record(i * 0.37, new KeyValuePair<string, object?>("route", "/r" + (i % 5)));
                bytes.Add(i * 1.5, new KeyValuePair<string, object?>("route", "/r" + (i % 5)));
            }
        }

        // Series recorded outside a sampled activity keep no exemplar.
        latency.Record(0.5, new KeyValuePair<string, object?>("route", "/none"));
        latency.Record(50, new KeyValuePair<string, object?>("route", "/none"));
        bytes.Add(2, new KeyValuePair<string, object?>("route", "/none"));
        var source = new RegistrySource(registry, "scope", "1.0", NullLogger.Instance);
        ExpositionWriter writer = Writer(format);

        Scrape(source, writer);
        byte[] scraped = writer.ToArray();
        ExposedSeries.AssertNoneRepeated(format, scraped);

        ExpositionWriter expected = Writer(format);
        var scratch = new PrometheusTextWriter();
        KeyValuePair<string, string>[] scope = [new(ExportedNames.ScopeNameLabel, "scope"), new(ExportedNames.ScopeVersionLabel, "1.0")];
        ExportedFamily family = ExportedFamily.For(latency);
        expected.WriteHeader(family.TextName, family.Kind, latency.Description, family.Unit);
        foreach (HistogramReading reading in latency.Collect())
        {
            expected.WriteHistogram(family.TextName, LabelBlock.Create(scratch, scope, reading.Tags), reading.Boundaries, reading.BucketCounts, reading.Sum, latency.CreatedAt, reading.Exemplars);
        }

        family = ExportedFamily.For(bytes);
        expected.WriteHeader(family.TextName, family.Kind, bytes.Description, family.Unit);
        foreach (DoubleReading reading in bytes.Collect())
        {
            LabelBlock labels = LabelBlock.Create(scratch, scope, reading.Tags);
            expected.WriteSample(family.TextName, string.Empty, labels, null, 0, reading.Value, reading.Exemplar);
            expected.WriteCreated(family.TextName, family.Kind, labels, bytes.CreatedAt);
        }

        expected.WriteEnd();
        Assert.True(scraped.AsSpan().IndexOf(format == PrometheusExpositionFormat.Text ? "/none"u8 : "trace_id"u8) >= 0, "The registry is not the one meant.");
        Assert.Equal(Encoding.UTF8.GetString(expected.ToArray()), Encoding.UTF8.GetString(scraped));
        Assert.True(expected.ToArray().AsSpan().SequenceEqual(scraped));
    }

    /// <summary>
    /// Exponential histograms of every shape (classic boundaries or none, downscaled readings,
    /// the zero bucket only, a series bound and never recorded, +∞), double counters, up-down
    /// counters and gauges of both value types, with extreme values; per thread, so that double
    /// sums are the same bits in every run.
    /// </summary>
    internal static MetricRegistry Registry()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 1000, Strategy = PartitionStrategy.PerThread });
        PartitionedExponentialHistogram native = registry.CreateExponentialHistogram("golden.native", "s", "Native.", scale: 3, minValue: 0.001, maxValue: 1e6);
        PartitionedExponentialHistogram narrow = registry.CreateExponentialHistogram("golden.narrow", "By", null, scale: 3, minValue: 0.001, maxValue: 1e6, maxBuckets: 4);
        PartitionedExponentialHistogram both = registry.CreateExponentialHistogram("golden.both", "s", null, scale: 0, minValue: 1, maxValue: 1024, classicBoundaries: [0.25, 1, 10, 100]);
        PartitionedExponentialHistogram zero = registry.CreateExponentialHistogram("golden.zero", scale: 4);
        foreach (double value in (double[])[0, 0.75, 1.5, 1.5, 100, 3, 7000, 0.002, 12, 900, 901, 902])
        {
            native.Record(value, new KeyValuePair<string, object?>("k", "a"));
            native.Record(value * 3, new KeyValuePair<string, object?>("k", "b"));
            narrow.Record(value, new KeyValuePair<string, object?>("k", "a"));
            both.Record(value, new KeyValuePair<string, object?>("k", "a"));
            both.Record(value / 7, new KeyValuePair<string, object?>("k", "b"));
        }

        for (int i = 1; i < 200; i++)
        {
            native.Record(i * 1.07, new KeyValuePair<string, object?>("k", "dense"));
            narrow.Record(i * i * 0.3, new KeyValuePair<string, object?>("k", "dense"));
        }

        native.Record(double.PositiveInfinity, new KeyValuePair<string, object?>("k", "inf"));
        native.Record(2e9, new KeyValuePair<string, object?>("k", "inf"));
        native.Bind(new KeyValuePair<string, object?>("k", "never"));
        both.Bind(new KeyValuePair<string, object?>("k", "never"));
        zero.Record(0.0);
        zero.Record(0.0);

        PartitionedDoubleCounter bytes = registry.CreateDoubleCounter("golden.bytes", "By", "Bytes.");
        bytes.Add(1.5e300, new KeyValuePair<string, object?>("dir", "in"));
        bytes.Add(0.1, new KeyValuePair<string, object?>("dir", "out"));
        bytes.Add(0.2, new KeyValuePair<string, object?>("dir", "out"));
        bytes.Add(1.7e308, new KeyValuePair<string, object?>("dir", "over"));
        bytes.Add(1.7e308, new KeyValuePair<string, object?>("dir", "over"));
        bytes.Add(0.0);
        bytes.Bind(new KeyValuePair<string, object?>("dir", "never"));

        PartitionedUpDownCounter queue = registry.CreateUpDownCounter("golden.queue", "{item}", "Queued.");
        queue.Add(-42, new KeyValuePair<string, object?>("q", "ü\"\\\n"));
        queue.Add(long.MaxValue, new KeyValuePair<string, object?>("q", "max"));
        queue.Add(long.MinValue, new KeyValuePair<string, object?>("q", "min"));
        queue.Add(5, new KeyValuePair<string, object?>("q", "back"));
        queue.Add(-5, new KeyValuePair<string, object?>("q", "back"));
        queue.Add(7);

        PartitionedDoubleUpDownCounter level = registry.CreateDoubleUpDownCounter("golden.level");
        level.Add(-0.125);
        level.Add(1e-300, new KeyValuePair<string, object?>("l", "tiny"));
        level.Add(3.5, new KeyValuePair<string, object?>("l", "up"));
        level.Add(-1.25, new KeyValuePair<string, object?>("l", "up"));

        Gauge temp = registry.CreateGauge("golden.temp", "Cel", "Temperature.");
        temp.Set(-273, new KeyValuePair<string, object?>("room", "日本 x\uDC00y"));
        temp.Set(long.MaxValue, new KeyValuePair<string, object?>("room", "hot"));
        temp.Set(20, new KeyValuePair<string, object?>("room", "a"));
        temp.Set(21, new KeyValuePair<string, object?>("room", "a"));
        temp.Bind(new KeyValuePair<string, object?>("room", "never"));

        DoubleGauge ratio = registry.CreateDoubleGauge("golden.ratio");
        ratio.Set(double.NaN);
        ratio.Set(double.NegativeInfinity, new KeyValuePair<string, object?>("r", "neg"));
        ratio.Set(0.1, new KeyValuePair<string, object?>("r", "tenth"));
        ratio.Bind(new KeyValuePair<string, object?>("r", "never"));

        // A gauge none of whose series is set writes no family.
        registry.CreateGauge("golden.unset").Bind(new KeyValuePair<string, object?>("u", "never"));
        return registry;
    }

    private static ExpositionWriter Writer(PrometheusExpositionFormat format) => ExpositionFormat.Of(format).CreateWriter();

    internal static string Scrape(RegistrySource source, ExpositionWriter writer)
    {
        writer.Clear();
        source.Write(writer, new HashSet<string>(StringComparer.Ordinal));
        writer.WriteEnd();
        return Encoding.UTF8.GetString(writer.WrittenSpan);
    }

    // The golden text, each _created sample's value (the time of the test's run) written <created>.
    private static void AssertGolden(string name, string actual) =>
        GoldenFiles.AssertSame(name, Encoding.UTF8.GetBytes(Created().Replace(actual, "$1 <created>")));

    [GeneratedRegex(@"^([^ \n]*_created(?:\{[^\n]*\})?) [^\n]*$", RegexOptions.Multiline)]
    private static partial Regex Created();

    [GeneratedRegex(@"^[^ \n]*_created(?:\{[^\n]*\})? [^\n]*\n", RegexOptions.Multiline)]
    private static partial Regex CreatedLine();
}
