using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// What a text writer keeps from line to line (sample names, formatted <c>le</c> values, its
/// buffer) never shows in what it writes: histograms of other boundaries in turn, a boundary
/// list reused with new values, and a scrape written into a lent buffer read the same as ever.
/// </summary>
public sealed class ExpositionWriterReuseTests
{
    [Fact]
    public void HistogramsOfOtherBoundariesInTurnEachWriteTheirOwn()
    {
        // Series "a" twice, as two scrapes would write it, without a Clear between them.
        var writer = new TextFormatWriter();
        LabelBlock labels = LabelBlock.Create(new PrometheusTextWriter(), [], [new("route", "/a")]);
        List<double> reused = [1, 2.5];

        writer.WriteHistogram("a", labels, reused, [1, 0, 0], 0.5);
        writer.WriteHistogram("b", labels, [1, 1e6], [0, 2, 0], 7);
        reused[1] = 1e-5;
        writer.WriteHistogram("a", labels, reused, [1, 0, 1], 2.5);

        Assert.Equal(
            """
            a_bucket{route="/a",le="1"} 1
            a_bucket{route="/a",le="2.5"} 1
            a_bucket{route="/a",le="+Inf"} 1
            a_sum{route="/a"} 0.5
            a_count{route="/a"} 1
            b_bucket{route="/a",le="1"} 0
            b_bucket{route="/a",le="1e+06"} 2
            b_bucket{route="/a",le="+Inf"} 2
            b_sum{route="/a"} 7
            b_count{route="/a"} 2
            a_bucket{route="/a",le="1"} 1
            a_bucket{route="/a",le="1e-05"} 1
            a_bucket{route="/a",le="+Inf"} 2
            a_sum{route="/a"} 2.5
            a_count{route="/a"} 2

            """.ReplaceLineEndings("\n"),
            writer.ToString());
    }

    [Fact]
    public void OpenMetricsBoundariesAndCreatedKeepTheirOwnSpelling()
    {
        var writer = new OpenMetricsWriter(createdSamples: true);
        LabelBlock labels = LabelBlock.Create(new PrometheusTextWriter(), [], []);
        var created = DateTimeOffset.FromUnixTimeMilliseconds(1_500_000_000_000);

        writer.WriteHistogram("h", labels, [1, 2], [1, 1, 0], 3, created);
        writer.WriteSample("c_total", string.Empty, labels, null, 0, 4L);
        writer.WriteCreated("c_total", ExportedKind.Counter, labels, created);
        writer.WriteEnd();

        Assert.Equal(
            """
            h_bucket{le="1.0"} 1
            h_bucket{le="2.0"} 2
            h_bucket{le="+Inf"} 2
            h_count 2
            h_sum 3.0
            h_created 1500000000.0
            c_total 4
            c_created 1500000000.0
            # EOF

            """.ReplaceLineEndings("\n"),
            writer.ToString());
    }

    [Fact]
    public void AScrapeWrittenIntoALentBufferIsHandedBackInIt()
    {
        var writer = new TextFormatWriter();
        LabelBlock labels = LabelBlock.Create(new PrometheusTextWriter(), [], []);
        byte[] lent = new byte[4];

        writer.Clear(lent);
        writer.WriteSample("x", string.Empty, labels, null, 0, 1L);
        ArraySegment<byte> first = writer.Detach();
        writer.Clear(lent.Length > first.Count ? lent : new byte[64]);
        writer.WriteSample("y", string.Empty, labels, null, 0, 2L);
        ArraySegment<byte> second = writer.Detach();

        Assert.Equal("x 1\n", System.Text.Encoding.UTF8.GetString(first));
        Assert.Equal("y 2\n", System.Text.Encoding.UTF8.GetString(second));
        Assert.NotSame(first.Array, second.Array);
    }
}
