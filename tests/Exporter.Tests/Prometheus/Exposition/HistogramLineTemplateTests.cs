using System.Text;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

/// <summary>
/// A histogram series' lines are kept by the writer for its label block between scrapes (<see cref="HistogramLineTemplate"/>);
/// a block shared by families of other names or boundaries, or written in both text formats, must
/// never lend one family's lines to another: the kept lines read as the lines written whole (as
/// a series with exemplars is written), from cumulative counts and from a reader's bucket counts alike.
/// </summary>
public sealed class HistogramLineTemplateTests
{
    public static TheoryData<bool> Labelled => new() { true, false };

    [Theory]
    [MemberData(nameof(Labelled))]
    public void SharedBlockWritesEachFamilysOwnLines(bool labelled)
    {
        LabelBlock labels = LabelBlock.Create(new PrometheusTextWriter(), [], labelled ? [new("route", "/a")] : []);
        (string Name, double[] Boundaries)[] families =
        [
            ("a", [1, 2]),
            ("b", [1, 2]),
            ("a", [1, 3]),
            ("a", []),
            ("a", [-1, 0.5]),
            ("a", [1, 2]),
        ];

        LineFormatWriter[] kept = [new TextFormatWriter(), new OpenMetricsWriter()];
        for (int round = 0; round < 2; round++)
        {
            foreach ((string name, double[] boundaries) in families)
            {
                long[] counts = [.. Enumerable.Range(1, boundaries.Length + 1).Select(static c => (long)c * 7)];
                foreach (LineFormatWriter writer in kept)
                {
                    string expected = WriteWhole(writer, name, labels, boundaries, counts);
                    Assert.Contains(name + "_bucket", expected, StringComparison.Ordinal);
                    Assert.Equal(expected, Write(writer, name, labels, boundaries, counts));
                    Assert.Equal(expected, WriteFromSpan(writer, name, labels, boundaries, counts));
                }
            }
        }
    }

    [Fact]
    public void FamiliesSharingABlockEachKeepTheirLines()
    {
        // The empty tag set is one label block for every untagged instrument of a meter.
        LabelBlock labels = LabelBlock.Create(new PrometheusTextWriter(), [], []);
        var writer = new TextFormatWriter();
        double[] boundaries = [1, 2];
        long[] counts = [1, 2, 3];

        Write(writer, "a", labels, boundaries, counts);
        HistogramLineTemplate? a = writer.KeptHistogramLines(labels, "a", boundaries);
        Write(writer, "b", labels, boundaries, counts);
        Write(writer, "a", labels, boundaries, counts);

        Assert.NotNull(a);
        Assert.Same(a, writer.KeptHistogramLines(labels, "a", boundaries));
        Assert.NotNull(writer.KeptHistogramLines(labels, "b", boundaries));
        Assert.Null(new OpenMetricsWriter().KeptHistogramLines(labels, "a", boundaries));
        Assert.Null(writer.KeptHistogramLines(labels, "a", [1, 3]));
    }

    [Fact]
    public void ABlockKeepsAtMostItsLimitOfFamilies()
    {
        LabelBlock labels = LabelBlock.Create(new PrometheusTextWriter(), [], []);
        var writer = new TextFormatWriter();
        double[] boundaries = [1];
        for (int i = 0; i <= HistogramLineTemplate.MaxKeptPerBlock; i++)
        {
            Write(writer, "f" + i, labels, boundaries, [1, 2]);
        }

        // The oldest made room for the newest.
        Assert.Null(writer.KeptHistogramLines(labels, "f0", boundaries));
        Assert.NotNull(writer.KeptHistogramLines(labels, "f1", boundaries));
        Assert.NotNull(writer.KeptHistogramLines(labels, "f" + HistogramLineTemplate.MaxKeptPerBlock, boundaries));
    }

    private static string Write(LineFormatWriter writer, string name, LabelBlock labels, double[] boundaries, long[] counts)
    {
        writer.Clear();
        writer.WriteHistogram(name, labels, boundaries, (IReadOnlyList<long>)counts, sum: 12.25);
        return Encoding.UTF8.GetString(writer.ToArray());
    }

    // Line by line, as a series with exemplars is written (no exemplar here), never from kept lines.
    private static string WriteWhole(LineFormatWriter writer, string name, LabelBlock labels, double[] boundaries, long[] counts)
    {
        writer.Clear();
        writer.WriteHistogram(name, labels, boundaries, counts.AsSpan(), 12.25, created: null, exemplars: new Exemplar?[counts.Length]);
        return Encoding.UTF8.GetString(writer.ToArray());
    }

    // As a registry's histogram is written: its bucket counts a span of the reader's array.
    private static string WriteFromSpan(LineFormatWriter writer, string name, LabelBlock labels, double[] boundaries, long[] counts)
    {
        writer.Clear();
        writer.WriteHistogram(name, labels, boundaries, counts.AsSpan(), 12.25, created: null);
        return Encoding.UTF8.GetString(writer.ToArray());
    }
}
