using System.Text;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.OpenTelemetry;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry;

/// <summary>A collection of the <c>MeterProvider</c> is rendered in the format its scrape asks for, and in no other.</summary>
public sealed class PrometheusPullExporterFormatTests
{
    private static readonly PrometheusExpositionFormat[] s_formats =
        [PrometheusExpositionFormat.OpenMetrics, PrometheusExpositionFormat.Protobuf, PrometheusExpositionFormat.Text, PrometheusExpositionFormat.OpenMetrics];

    [Fact]
    public async Task EachCollectionIsRenderedInTheFormatAskedFor()
    {
        using var harness = new ExporterHarness();
        harness.Meter.CreateCounter<long>("requests").Add(3);

        foreach (PrometheusExpositionFormat format in s_formats)
        {
            RenderedCollection collection = await harness.Exporter.CollectAsync(format);

            Assert.Equal(format, collection.Format);
            Assert.Equal("requests_total", Assert.Single(collection.Families).Name);
        }
    }

    [Fact]
    public async Task ACollectionAfterAForceFlushThatRenderedAnotherFormatIsInItsOwn()
    {
        using var harness = new ExporterHarness();
        harness.Meter.CreateCounter<long>("requests").Add(1);
        await harness.Exporter.CollectAsync(PrometheusExpositionFormat.Protobuf);
        Assert.True(harness.Provider.ForceFlush());

        RenderedCollection text = await harness.Exporter.CollectAsync(PrometheusExpositionFormat.Text);

        Assert.Equal(PrometheusExpositionFormat.Text, text.Format);
        Assert.Contains("requests_total{otel_scope_name=\"" + harness.MeterName + "\"} 1\n", Encoding.UTF8.GetString(text.Bytes), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ACollectionThatJoinsAForceFlushRenderingAnotherFormatCollectsAgainInItsOwn()
    {
        using var harness = new ExporterHarness();
        var tag = new BlockingTagValue();
        harness.Meter.CreateCounter<long>("requests").Add(1, new KeyValuePair<string, object?>("k", tag));
        await harness.Exporter.CollectAsync(PrometheusExpositionFormat.Text);

        // The flush's export takes the format (text), then stops in the middle of its families.
        tag.Block();
        Task<bool> flush = Task.Run(() => harness.Provider.ForceFlush());
        Assert.True(tag.Entered.Wait(TimeSpan.FromSeconds(10)));
        Task<RenderedCollection> openMetrics = Task.Run(() => harness.Exporter.CollectAsync(PrometheusExpositionFormat.OpenMetrics));

        // Time for the scrape's collection to join the flush's, which it then waits for.
        await Task.Delay(200);
        tag.Release();

        Assert.True(await flush);
        RenderedCollection collection = await openMetrics;
        Assert.Equal(PrometheusExpositionFormat.OpenMetrics, collection.Format);
        Assert.Equal("requests_total", Assert.Single(collection.Families).Name);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(6)]
    [InlineData(50)]
    public async Task ACollectionHandedBackAfterItEndedIsNotCountedAsAFailure(int handedBack)
    {
        // OpenTelemetry's reader forgets a collection only after releasing the calls that waited
        // for it: a ForceFlush's collection, in another format, can be handed back, already ended,
        // to the calls a scrape makes right after (true, nothing exported), as often as the
        // reader's thread is not scheduled; as many as a scrape's three attempts make failed it.
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

        RenderedCollection collection = await exporter.CollectAsync(PrometheusExpositionFormat.OpenMetrics);

        Assert.Equal(PrometheusExpositionFormat.OpenMetrics, collection.Format);
        Assert.Equal(handedBack + 1, calls);
    }

    // A tag value whose printing (during an export) can be made to wait, once.
    private sealed class BlockingTagValue
    {
        private readonly ManualResetEventSlim _released = new(initialState: true);

        public ManualResetEventSlim Entered { get; } = new();

        public void Block() => _released.Reset();

        public void Release() => _released.Set();

        public override string ToString()
        {
            if (!_released.IsSet)
            {
                Entered.Set();
                _released.Wait(TimeSpan.FromSeconds(10));
            }

            return "v";
        }
    }
}
