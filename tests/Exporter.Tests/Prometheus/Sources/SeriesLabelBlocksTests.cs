using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Sources;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Sources;

/// <summary>
/// An instrument's label blocks kept by series position, and their text kept one after the other:
/// the text read at a position is always its block's, as blocks are replaced there and the kept
/// text is compacted.
/// </summary>
public sealed class SeriesLabelBlocksTests
{
    [Fact]
    public void TheTextAtAPositionIsItsBlocksThroughReplacementsAndCompaction()
    {
        var blocks = new SeriesLabelBlocks();
        var scratch = new PrometheusTextWriter();
        TagSet[] tags = [.. Enumerable.Range(0, 200).Select(i => TagSet.Create(new KeyValuePair<string, object?>("route", $"/route/{i}")))];
        int found = 0;
        Func<TagSet, LabelBlock> find = t =>
        {
            found++;
            return LabelBlock.Create(scratch, [new("otel_scope_name", "m")], t);
        };

        for (int round = 0; round < 6; round++)
        {
            // Each round another tag set at every position, each once, then every one read again.
            for (int position = 0; position < 100; position++)
            {
                TagSet key = tags[(position + (round * 37)) % tags.Length];
                LabelBlock block = blocks.Get(position, key, find);
                Assert.Equal(block.Utf8.ToArray(), blocks.Text(position).ToArray());
            }

            for (int position = 0; position < 100; position++)
            {
                TagSet key = tags[(position + (round * 37)) % tags.Length];
                int before = found;
                LabelBlock block = blocks.Get(position, key, find);
                Assert.Equal(before, found);
                Assert.Equal($"otel_scope_name=\"m\",route=\"/route/{(position + (round * 37)) % tags.Length}\"", block.ToString());
                Assert.Equal(block.Utf8.ToArray(), blocks.Text(position).ToArray());
            }
        }
    }
}
