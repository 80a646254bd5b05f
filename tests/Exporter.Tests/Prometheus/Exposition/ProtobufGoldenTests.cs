using System.Diagnostics;
using System.Diagnostics.Metrics;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

/// <summary>
/// The protobuf exposition byte for byte against golden files (<c>Golden/*.bin</c>, embedded):
/// the bytes the writer built on Google.Protobuf's <c>CodedOutputStream</c> wrote for the same
/// input, captured before the writer was rewritten. Every kind of family and message the
/// exposition writes is here: counters (with and without exemplars), gauges, info, up-down
/// counters, summaries, classic histograms (exemplars on finite buckets and on the +Inf bucket
/// added for one), native histograms with and without classic boundaries (several spans, the
/// no-op span), label values with escapes, non-ASCII text and a lone surrogate, series without
/// labels, and enough series, buckets and text that every buffer grows past its first size.
/// </summary>
/// <remarks>
/// On a mismatch the bytes written are saved beside the test's output (the message names the
/// file): where a change of the output is meant, check them (<see cref="ProtoMessage"/>) and
/// copy them over the golden file.
/// </remarks>
public sealed class ProtobufGoldenTests
{
    private static readonly DateTimeOffset s_timestamp = DateTimeOffset.FromUnixTimeMilliseconds(1_700_000_000_123).AddTicks(4567);

    [Fact]
    public void TheWriterWritesTheGoldenBytes() =>
        AssertGolden("protobuf-writer.bin", WriteEveryKind(new ProtobufWriter()));

    [Fact]
    public void AWriterReusedForASecondScrapeWritesTheSameBytes()
    {
        // Everything kept from the first scrape (grown buffers, label pairs) shows in nothing the second writes.
        var writer = new ProtobufWriter();
        WriteEveryKind(writer);
        writer.Clear();

        AssertGolden("protobuf-writer.bin", WriteEveryKind(writer));
    }

    [Fact]
    public async Task ARegistryScrapeWritesTheGoldenBytes()
    {
        using var scraper = new PrometheusScraper(GoldenRegistry(), "golden.scope", "1.2.3");

        await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf);

        AssertGolden("protobuf-registry.bin", await scraper.ScrapeAsync(PrometheusExpositionFormat.Protobuf));
    }

    /// <summary>
    /// A registry of every kind of instrument the registry source writes, with deterministic values
    /// (no exemplars in the golden bytes: their ids and times are not; with <see cref="ExemplarFilter.TraceBased"/>,
    /// what is recorded under a sampled activity keeps them).
    /// </summary>
    internal static MetricRegistry GoldenRegistry(ExemplarFilter exemplarFilter = ExemplarFilter.None)
    {
        // Per thread, so that the sums are the same bytes in every run: a double sum read from
        // several processors' partitions is added in another order, and so may differ in its last
        // bit, where the thread moved between processors while it recorded (as it does in a full
        // test run); the calling thread's one partition sums in the order recorded.
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 1000, ExemplarFilter = exemplarFilter, Strategy = PartitionStrategy.PerThread });
        PartitionedCounter requests = registry.CreateCounter("golden.requests", "{request}", "Requests served.");
        for (int i = 0; i < 400; i++)
        {
            requests.Add(i * 37L, new("http.route", "/api/items/" + (i % 10)), new("instance", (long)i));
        }

        requests.Add(long.MaxValue / 2);
        registry.CreateDoubleCounter("golden.bytes", "By").Add(1.5e300, new KeyValuePair<string, object?>("dir", "in"));
        registry.CreateUpDownCounter("golden.queue").Add(-42, new KeyValuePair<string, object?>("q", "ü\"\\\n"));
        registry.CreateDoubleUpDownCounter("golden.level").Add(-0.125);
        registry.CreateGauge("golden.temp", "Cel", "Temperature.").Set(-273, new KeyValuePair<string, object?>("room", "日本 x\uDC00y"));
        registry.CreateDoubleGauge("golden.ratio").Set(double.NaN);

        PartitionedHistogram latency = registry.CreateHistogram("golden.latency", "s", "Latency.", [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
        PartitionedHistogram wide = registry.CreateHistogram("golden.wide", "By", null, [.. Enumerable.Range(1, 150).Select(i => i * 1000.0)]);
        for (int i = 0; i < 300; i++)
        {
            latency.Record(i / 100.0, new KeyValuePair<string, object?>("route", "/" + (i % 7)));
            wide.Record(i * 517.0, new KeyValuePair<string, object?>("shard", (long)(i % 3)));
        }

        latency.Record(0);

        PartitionedExponentialHistogram native = registry.CreateExponentialHistogram("golden.native", "s", "Native.", scale: 3, minValue: 0.001, maxValue: 1e6);
        PartitionedExponentialHistogram both = registry.CreateExponentialHistogram("golden.both", "s", null, scale: 0, minValue: 1, maxValue: 1024, classicBoundaries: [0.25, 1, 10, 100]);
        PartitionedExponentialHistogram empty = registry.CreateExponentialHistogram("golden.zero", scale: 4);
        foreach (double value in (double[])[0, 0.75, 1.5, 1.5, 100, 3, 7000, 0.002, 12, 900, 901, 902])
        {
            native.Record(value, new KeyValuePair<string, object?>("k", "a"));
            native.Record(value * 3, new KeyValuePair<string, object?>("k", "b"));
            both.Record(value);
        }

        for (int i = 1; i < 200; i++)
        {
            native.Record(i * 1.07, new KeyValuePair<string, object?>("k", "dense"));
        }

        empty.Record(0.0);
        registry.CreateObservableGauge("golden.observed", () => [new Measurement<double>(2.5, new KeyValuePair<string, object?>("src", "cb"))]);

        // A fixed start, so that the counters', histograms' and summaries' created_timestamp are the same bytes in every run.
        foreach (Instrument instrument in registry.Instruments)
        {
            instrument.CreatedAt = s_timestamp;
        }

        return registry;
    }

    /// <summary>Writes, through <paramref name="writer"/>, families of every kind with exemplars, unusual values and long text; returns the bytes.</summary>
    internal static byte[] WriteEveryKind(ExpositionWriter writer)
    {
        var scratch = new PrometheusTextWriter();
        LabelBlock none = LabelBlock.Create(scratch, [], []);
        LabelBlock scope = LabelBlock.Create(scratch, [new("otel_scope_name", "golden"), new("otel_scope_version", "1.0")], []);
        LabelBlock awkward = LabelBlock.Create(scratch, [], [new("a", "日本 x\uDC00y"), new("b", "q\"uo\\te\nline"), new("c.d", ""), new("e", 3.25)]);
        LabelBlock longValue = LabelBlock.Create(scratch, [], [new("long", string.Concat(Enumerable.Repeat("ab€", 700)))]);
        var exemplar = new Exemplar(3, s_timestamp, ActivityTraceId.CreateFromString("0af7651916cd43dd8448eb211c80319c"), ActivitySpanId.CreateFromString("b7ad6b7169203331"));
        var before = new Exemplar(-0.5, DateTimeOffset.UnixEpoch.AddTicks(-15), ActivityTraceId.CreateFromString("ffffffffffffffffffffffffffffffff"), ActivitySpanId.CreateFromString("0000000000000001"));

        writer.WriteHeader("target_info", ExportedKind.Info, "Target metadata");
        writer.WriteSample("target_info", string.Empty, scope, null, 0, 1L);

        writer.WriteHeader("golden_requests_total", ExportedKind.Counter, string.Concat(Enumerable.Repeat("A long help, naïve \uD800. ", 120)));
        writer.WriteSample("golden_requests_total", string.Empty, none, null, 0, 0L);
        writer.WriteSample("golden_requests_total", string.Empty, scope, null, 0, long.MaxValue, exemplar);
        writer.WriteSample("golden_requests_total", string.Empty, awkward, null, 0, 1e300, before);
        writer.WriteSample("golden_requests_total", string.Empty, longValue, null, 0, double.PositiveInfinity);
        for (int i = 0; i < 600; i++)
        {
            LabelBlock series = LabelBlock.Create(scratch, [], [new("instance", (long)i), new("route", "/api/" + (i % 13))]);
            writer.WriteCounterSeries("golden_requests_total", ExportedKind.Counter, series, series.Utf8, i * 1_000_003L, i % 50 == 0 ? exemplar : null, null);
        }

        writer.WriteHeader("golden_empty_family", ExportedKind.Gauge, null);
        writer.WriteHeader("golden_gauge", ExportedKind.Gauge, string.Empty);
        writer.WriteSample("golden_gauge", string.Empty, none, null, 0, -0.0);
        writer.WriteSample("golden_gauge", string.Empty, scope, null, 0, double.NaN, exemplar);
        writer.WriteSample("golden_gauge", string.Empty, awkward, null, 0, double.NegativeInfinity);
        writer.WriteSample("golden_gauge", string.Empty, longValue, null, 0, -42L);

        writer.WriteHeader("golden_operation_seconds", ExportedKind.Summary, "Operations.");
        writer.WriteSummary("golden_operation_seconds", none, 0, 0);
        writer.WriteSummary("golden_operation_seconds", scope, long.MaxValue, 1.25e-7);
        writer.WriteSummary("golden_operation_seconds", awkward, 17, double.NaN);

        writer.WriteHeader("golden_latency_seconds", ExportedKind.Histogram, "Latency.");
        writer.WriteHistogram("golden_latency_seconds", none, [0.5, 1], [0, 0, 0], 0);
        writer.WriteHistogram("golden_latency_seconds", scope, [0.5, 1], [2, 0, 1], 7.25, null, [null, exemplar, before]);
        writer.WriteHistogram("golden_latency_seconds", awkward, [0.5, 1], [1, 1, 0], 1.0, null, [exemplar, null, null]);
        writer.WriteHistogram("golden_latency_seconds", longValue, [0.5, 1], [long.MaxValue, 5, 5], 1e308);
        double[] many = [.. Enumerable.Range(0, 300).Select(i => Math.Pow(1.05, i) - 1)];
        long[] counts = [.. Enumerable.Range(0, 301).Select(i => (long)(i * i % 1000))];
        Exemplar?[] someExemplars = [.. Enumerable.Range(0, 301).Select(i => i % 40 == 3 ? exemplar : (Exemplar?)null)];
        writer.WriteHeader("golden_wide", ExportedKind.Histogram, null);
        writer.WriteHistogram("golden_wide", none, many, counts, 123456.789);
        writer.WriteHistogram("golden_wide", scope, many, counts, 1, null, someExemplars);
        writer.WriteHistogram("golden_wide", awkward, many, (ReadOnlySpan<long>)counts, 2, null);

        var registry = new MetricRegistry();
        PartitionedExponentialHistogram native = registry.CreateExponentialHistogram("n", scale: 2, minValue: 0.001, maxValue: 1e9, maxBuckets: 160);
        PartitionedExponentialHistogram both = registry.CreateExponentialHistogram("b", scale: 0, minValue: 1, maxValue: 1024, classicBoundaries: [0.25, 1, 10]);
        PartitionedExponentialHistogram zero = registry.CreateExponentialHistogram("z", scale: 4);
        foreach (double value in (double[])[0, 0.75, 1.5, 1.5, 100, 3000, 3001, 1e8])
        {
            native.Record(value, new KeyValuePair<string, object?>("s", "gaps"));
            both.Record(value);
        }

        for (int i = 0; i < 150; i++)
        {
            native.Record(Math.Pow(1.19, i) * 0.01, new KeyValuePair<string, object?>("s", "dense"));
            native.Record(Math.Pow(1.19, i) * 0.01, new KeyValuePair<string, object?>("s", "dense"));
        }

        zero.Record(0.0);
        zero.Record(0.0);
        writer.WriteHeader("golden_native_seconds", ExportedKind.Histogram, "Native.");
        foreach (ExponentialHistogramReading reading in native.Collect())
        {
            writer.WriteExponentialHistogram("golden_native_seconds", LabelBlock.Create(scratch, [], reading.Tags), reading);
        }

        writer.WriteExponentialHistogram("golden_native_seconds", none, Assert.Single(both.Collect()));
        writer.WriteExponentialHistogram("golden_native_seconds", scope, Assert.Single(zero.Collect()));
        writer.WriteEnd();
        return writer.WrittenSpan.ToArray();
    }

    // The golden bytes, which are also a stream of well-formed delimited messages, no two of one series.
    private static void AssertGolden(string name, byte[] actual)
    {
        GoldenFiles.AssertSame(name, actual);
        Assert.NotEmpty(ProtoMessage.ParseDelimited(actual));
        ExposedSeries.AssertNoneRepeated(PrometheusExpositionFormat.Protobuf, actual);
    }
}
