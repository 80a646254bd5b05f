using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

/// <summary>
/// The writer's output against text written by hand from the text format 0.0.4 specification
/// (prometheus/docs <c>exposition_formats.md</c>, its histogram example) and from Go's
/// <c>strconv.FormatFloat(f, 'g', -1, 64)</c>, which the Go clients' <c>expfmt</c> writes every
/// number and every <c>le</c> with; never from our own output.
/// </summary>
public sealed class ExpositionWriterTests
{
    [Theory]
    [InlineData(0.0, "0")]
    [InlineData(1.0, "1")]
    [InlineData(-1.0, "-1")]
    [InlineData(0.005, "0.005")]
    [InlineData(0.025, "0.025")]
    [InlineData(0.1, "0.1")]
    [InlineData(2.5, "2.5")]
    [InlineData(7.5, "7.5")]
    [InlineData(10.0, "10")]
    [InlineData(0.0001, "0.0001")]
    [InlineData(0.00001, "1e-05")]
    [InlineData(0.000123, "0.000123")]
    [InlineData(0.0000123, "1.23e-05")]
    [InlineData(100000.0, "100000")]
    [InlineData(123456.0, "123456")]
    [InlineData(1000000.0, "1e+06")]
    [InlineData(1234567.0, "1.234567e+06")]
    [InlineData(-2500000.0, "-2.5e+06")]
    [InlineData(1e21, "1e+21")]
    [InlineData(1e100, "1e+100")]
    [InlineData(5e-324, "5e-324")]
    [InlineData(double.MaxValue, "1.7976931348623157e+308")]
    [InlineData(0.30000000000000004, "0.30000000000000004")]
    [InlineData(123.456, "123.456")]
    [InlineData(-0.0001, "-0.0001")]
    [InlineData(9.9999999999999991e-05, "9.999999999999999e-05")]
    [InlineData(999999.99999999988, "999999.9999999999")]
    [InlineData(-123456.75, "-123456.75")]
    [InlineData(0.00012345678901234567, "0.00012345678901234567")]
    [InlineData(double.PositiveInfinity, "+Inf")]
    [InlineData(double.NegativeInfinity, "-Inf")]
    [InlineData(double.NaN, "NaN")]
    public void NumbersAreWrittenAsTheGoClientsWriteThem(double value, string expected)
    {
        var text = new PrometheusTextWriter();

        text.Write(value);

        Assert.Equal(expected, text.ToString());
    }

    // Apart from the theory, whose cases xUnit compares by value (-0.0 equals 0.0): writeFloat
    // tests f == 0 before it formats, which -0.0 passes, so Go writes it "0", not "-0".
    [Fact]
    public void NegativeZeroIsWrittenAsTheGoClientsWriteZero()
    {
        var text = new PrometheusTextWriter();

        text.Write(-0.0);

        Assert.Equal("0", text.ToString());
    }

    [Fact]
    public void AHistogramSeriesIsCumulativeBucketsEndingInInfThenSumAndCount()
    {
        // The specification's example (boundaries 0.05, 0.1, 0.2, 0.5, 1 and counts 24054,
        // 33444, 100392, 129389, 133988, 144320 cumulative, sum 53423), given per bucket.
        var writer = new TextFormatWriter();
        LabelBlock labels = LabelBlock.Create(new PrometheusTextWriter(), [], []);
        writer.WriteHeader("http_request_duration_seconds", ExportedKind.Histogram, "A histogram of the request duration.");

        writer.WriteHistogram(
            "http_request_duration_seconds",
            labels,
            [0.05, 0.1, 0.2, 0.5, 1],
            [24054, 33444 - 24054, 100392 - 33444, 129389 - 100392, 133988 - 129389, 144320 - 133988],
            53423);

        Assert.Equal(
            """
            # HELP http_request_duration_seconds A histogram of the request duration.
            # TYPE http_request_duration_seconds histogram
            http_request_duration_seconds_bucket{le="0.05"} 24054
            http_request_duration_seconds_bucket{le="0.1"} 33444
            http_request_duration_seconds_bucket{le="0.2"} 100392
            http_request_duration_seconds_bucket{le="0.5"} 129389
            http_request_duration_seconds_bucket{le="1"} 133988
            http_request_duration_seconds_bucket{le="+Inf"} 144320
            http_request_duration_seconds_sum 53423
            http_request_duration_seconds_count 144320

            """.ReplaceLineEndings("\n").Replace("{}", string.Empty, StringComparison.Ordinal),
            writer.ToString().Replace("{}", string.Empty, StringComparison.Ordinal));
    }

    [Fact]
    public void TheLeLabelFollowsTheSeriesLabelsAndUsesTheGoSpelling()
    {
        var writer = new TextFormatWriter();
        LabelBlock labels = LabelBlock.Create(new PrometheusTextWriter(), [new("otel_scope_name", "m")], [new("route", "/x")]);

        writer.WriteHistogram("d_seconds", labels, [0.00001, 1000000], [1, 0, 2], -1.5);

        Assert.Equal(
            """
            d_seconds_bucket{otel_scope_name="m",route="/x",le="1e-05"} 1
            d_seconds_bucket{otel_scope_name="m",route="/x",le="1e+06"} 1
            d_seconds_bucket{otel_scope_name="m",route="/x",le="+Inf"} 3
            d_seconds_sum{otel_scope_name="m",route="/x"} -1.5
            d_seconds_count{otel_scope_name="m",route="/x"} 3

            """.ReplaceLineEndings("\n"),
            writer.ToString());
    }

    [Fact]
    public void CumulativeCountsStopAtLongMaxValueRatherThanWrapping()
    {
        var writer = new TextFormatWriter();
        LabelBlock labels = LabelBlock.Create(new PrometheusTextWriter(), [], []);

        writer.WriteHistogram("h", labels, [1], [long.MaxValue, 5], 0);

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(writer.ToString());
        Assert.Equal(long.MaxValue.ToString(System.Globalization.CultureInfo.InvariantCulture), PrometheusText.Single(samples, "h_bucket", ("le", "+Inf")).Value);
        Assert.Equal(PrometheusText.Single(samples, "h_bucket", ("le", "+Inf")).Value, PrometheusText.Single(samples, "h_count").Value);
    }
}
