using System.Diagnostics;
using Microsoft.Extensions.Logging.Abstractions;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Sources;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

/// <summary>
/// A protobuf scrape encodes its messages in place into buffers it keeps (<see cref="ProtobufBuffer"/>):
/// once they have grown, writing a family allocates nothing, and a registry's scrape only what its
/// source allocates to read the series (as in the text formats), where a <c>CodedOutputStream</c>
/// and a <c>ByteString</c> per nested message made several hundred bytes per series.
/// </summary>
/// <remarks>Measured with <see cref="GC.GetAllocatedBytesForCurrentThread"/> around work done on the
/// test thread, with the writers production runs.</remarks>
public sealed class ProtobufAllocationTests
{
    // What a registry scrape allocates but not per series: a few enumerators and the source's writer state.
    private const long MaxBytesPerScrape = 1024;

    [Fact]
    public void WritingFamiliesOfEveryKindAllocatesNothingOnceTheBuffersHaveGrown()
    {
        var writer = new ProtobufWriter();
        var scratch = new PrometheusTextWriter();
        LabelBlock none = LabelBlock.Create(scratch, [], []);
        LabelBlock labels = LabelBlock.Create(scratch, [new("otel_scope_name", "m")], [new("route", "/a"), new("code", 200)]);
        var exemplar = new Exemplar(0.7, DateTimeOffset.UtcNow, ActivityTraceId.CreateRandom(), ActivitySpanId.CreateRandom());
        double[] boundaries = [0.5, 1, 2.5];
        long[] counts = [1, 2, 0, 4];
        Exemplar?[] exemplars = [null, exemplar, null, exemplar];
        var registry = new MetricRegistry();
        PartitionedExponentialHistogram native = registry.CreateExponentialHistogram("n", classicBoundaries: [1, 10]);
        foreach (double value in (double[])[0, 0.3, 3, 3000, 7])
        {
            native.Record(value);
        }

        ExponentialHistogramReading reading = Assert.Single(native.Collect());

        AllocationAssert.DoesNotAllocate(() =>
        {
            writer.Clear();
            writer.WriteHeader("c_total", ExportedKind.Counter, "Help.");
            writer.WriteSample("c_total", string.Empty, labels, null, 0, 17L, exemplar);
            writer.WriteSample("c_total", string.Empty, none, null, 0, 3.5);
            writer.WriteHeader("g", ExportedKind.Gauge, null);
            writer.WriteSample("g", string.Empty, labels, null, 0, -1.5);
            writer.WriteHeader("s", ExportedKind.Summary, null);
            writer.WriteSummary("s", labels, 3, 0.25);
            writer.WriteHeader("h", ExportedKind.Histogram, null);
            writer.WriteHistogram("h", labels, boundaries, counts, 12.5, null, exemplars);
            writer.WriteHistogram("h", none, boundaries, (ReadOnlySpan<long>)counts, 12.5, null);
            writer.WriteHeader("n", ExportedKind.Histogram, null);
            writer.WriteExponentialHistogram("n", labels, reading);
            writer.WriteEnd();
        });
        Assert.Equal(5, ProtoMessage.ParseDelimited(writer.WrittenSpan.ToArray()).Count);
    }

    [Fact]
    public void AScrapeOfCountersAndHistogramsAllocatesAFewBytesWhateverItsSeries()
    {
        // The kinds whose series the source reads into kept arrays (the scrape benchmarks' registry):
        // what the scrape allocates is then the protobuf writer's, and the source's few objects per scrape.
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 5000 });
        PartitionedCounter counter = registry.CreateCounter("requests", "{request}", "Requests.");
        PartitionedHistogram histogram = registry.CreateHistogram("latency", "s", null, [.. Enumerable.Range(1, 40).Select(i => i * 0.025)]);
        for (int i = 0; i < 3000; i++)
        {
            counter.Add(i + 1, new("route", "/api/items/" + (i % 100)), new("instance", (long)i));
            histogram.Record(i * 0.0003, new KeyValuePair<string, object?>("route", "/api/items/" + (i % 300)));
        }

        (int written, long allocated) = SteadyScrape(registry, new ProtobufWriter());

        Assert.True(written > 300_000, $"{written} bytes: the registry is not the one meant.");
        Assert.True(allocated <= MaxBytesPerScrape, $"A scrape of {written} bytes allocated {allocated} bytes.");
    }

    [Fact]
    public void AScrapeOfEveryKindAllocatesNoMoreThanTheTextScrapeOfTheSameRegistry()
    {
        // An observable instrument's callback still makes new readings (every stored kind is read in
        // place): the source allocates those in every format; the protobuf writer adds nothing to them.
        MetricRegistry registry;
        using (Activity activity = new Activity("t").SetIdFormat(ActivityIdFormat.W3C))
        {
            activity.ActivityTraceFlags = ActivityTraceFlags.Recorded;
            activity.Start();
            registry = ProtobufGoldenTests.GoldenRegistry(ExemplarFilter.TraceBased);
        }

        var protobuf = new ProtobufWriter();
        (int written, long allocated) = SteadyScrape(registry, protobuf);
        (_, long text) = SteadyScrape(registry, new TextFormatWriter());

        Assert.True(protobuf.WrittenSpan.IndexOf("trace_id"u8) >= 0, "No exemplar was written.");
        Assert.True(allocated <= text + MaxBytesPerScrape, $"A protobuf scrape of {written} bytes allocated {allocated} bytes, the text scrape {text}.");
    }

    // Scrapes that follow a first, which builds the label blocks and grows the buffers: what every
    // later scrape allocates is the least of three. As in AllocationAssert's rounds, one scrape can
    // see a one-off allocation of the runtime's own on this thread, which the next does not; what
    // the scrape itself allocates, each of the three shows.
    internal static (int Written, long Allocated) SteadyScrape(MetricRegistry registry, ExpositionWriter writer)
    {
        var source = new RegistrySource(registry, "scope", "1.0", NullLogger.Instance);
        var takenNames = new HashSet<string>(StringComparer.Ordinal);
        int written = Scrape(source, writer, takenNames);
        long least = long.MaxValue;
        for (int round = 0; round < 3; round++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            int again = Scrape(source, writer, takenNames);
            least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - before);
            Assert.Equal(written, again);
        }

        return (written, least);
    }

    private static int Scrape(RegistrySource source, ExpositionWriter writer, HashSet<string> takenNames)
    {
        writer.Clear();
        takenNames.Clear();
        source.Write(writer, takenNames);
        writer.WriteEnd();
        return writer.Length;
    }
}
