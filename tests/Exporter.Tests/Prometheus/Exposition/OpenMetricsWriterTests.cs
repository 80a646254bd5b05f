using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

/// <summary>
/// The writer in OpenMetrics against the examples of the OpenMetrics 1.0 specification
/// (OpenObservability/OpenMetrics <c>specification/OpenMetrics.md</c>: "An example of a complete
/// exposition", the Counter, Gauge, Info, Histogram and metadata examples, "Escaping" and
/// "Considerations: Canonical Numbers"), copied from the specification, never from our output.
/// </summary>
public sealed class OpenMetricsWriterTests
{
    private static readonly KeyValuePair<string, object?>[] s_noTags = [];

    [Fact]
    public void WritesTheSpecificationsCompleteExposition()
    {
        const string Expected = """
            # TYPE acme_http_router_request_seconds summary
            # UNIT acme_http_router_request_seconds seconds
            # HELP acme_http_router_request_seconds Latency though all of ACME's HTTP request router.
            acme_http_router_request_seconds_sum{path="/api/v1",method="GET"} 9036.32
            acme_http_router_request_seconds_count{path="/api/v1",method="GET"} 807283.0
            acme_http_router_request_seconds_created{path="/api/v1",method="GET"} 1605281325.0
            acme_http_router_request_seconds_sum{path="/api/v2",method="POST"} 479.3
            acme_http_router_request_seconds_count{path="/api/v2",method="POST"} 34.0
            acme_http_router_request_seconds_created{path="/api/v2",method="POST"} 1605281325.0
            # TYPE go_goroutines gauge
            # HELP go_goroutines Number of goroutines that currently exist.
            go_goroutines 69
            # TYPE process_cpu_seconds counter
            # UNIT process_cpu_seconds seconds
            # HELP process_cpu_seconds Total user and system CPU time spent in seconds.
            process_cpu_seconds_total 4.20072246e+06
            # EOF

            """;
        ExpositionWriter writer = OpenMetricsWriter();
        DateTimeOffset created = DateTimeOffset.FromUnixTimeSeconds(1605281325);

        // Label order as the example's: scope-position labels are written in the order given.
        const string Summary = "acme_http_router_request_seconds";
        writer.WriteHeader(Summary, ExportedKind.Summary, "Latency though all of ACME's HTTP request router.", "seconds");
        LabelBlock v1 = Labels(("path", "/api/v1"), ("method", "GET"));
        writer.WriteSample(Summary, "_sum", v1, null, 0, 9036.32);
        writer.WriteSample(Summary, "_count", v1, null, 0, 807283.0);
        writer.WriteCreated(Summary, ExportedKind.Summary, v1, created);
        LabelBlock v2 = Labels(("path", "/api/v2"), ("method", "POST"));
        writer.WriteSample(Summary, "_sum", v2, null, 0, 479.3);
        writer.WriteSample(Summary, "_count", v2, null, 0, 34.0);
        writer.WriteCreated(Summary, ExportedKind.Summary, v2, created);
        writer.WriteHeader("go_goroutines", ExportedKind.Gauge, "Number of goroutines that currently exist.");
        writer.WriteSample("go_goroutines", string.Empty, Labels(), null, 0, 69L);
        writer.WriteHeader("process_cpu_seconds_total", ExportedKind.Counter, "Total user and system CPU time spent in seconds.", "seconds");
        writer.WriteSample("process_cpu_seconds_total", string.Empty, Labels(), null, 0, 4.20072246e+06);
        writer.WriteEnd();

        Assert.Equal(Expected.ReplaceLineEndings("\n"), writer.ToString());
    }

    [Fact]
    public void WritesACounterAsTheSpecificationWithCreated()
    {
        ExpositionWriter writer = OpenMetricsWriter();

        writer.WriteHeader("foo_total", ExportedKind.Counter, null);
        writer.WriteSample("foo_total", string.Empty, Labels(), null, 0, 17.0);
        writer.WriteCreated("foo_total", ExportedKind.Counter, Labels(), DateTimeOffset.FromUnixTimeMilliseconds(1520430000123));

        Assert.Equal("# TYPE foo counter\nfoo_total 17.0\nfoo_created 1520430000.123\n", writer.ToString());
    }

    [Fact]
    public void WritesGaugesAndInfoAsTheSpecification()
    {
        ExpositionWriter writer = OpenMetricsWriter();

        writer.WriteHeader("foo", ExportedKind.Gauge, null);
        writer.WriteSample("foo", string.Empty, Labels(("a", "bb")), null, 0, 17.0);
        writer.WriteSample("foo", string.Empty, Labels(("a", "ccc")), null, 0, 17.0);
        writer.WriteHeader("bar_info", ExportedKind.Info, null);
        writer.WriteSample("bar_info", string.Empty, Labels(("name", "pretty name"), ("version", "8.2.7")), null, 0, 1L);

        Assert.Equal(
            "# TYPE foo gauge\nfoo{a=\"bb\"} 17.0\nfoo{a=\"ccc\"} 17.0\n# TYPE bar info\nbar_info{name=\"pretty name\",version=\"8.2.7\"} 1\n",
            writer.ToString());
    }

    [Fact]
    public void WritesTheSpecificationsHistogramWithCanonicalLeValuesCountBeforeSumAndCreated()
    {
        const string Expected = """
            # TYPE foo histogram
            foo_bucket{le="0.0"} 0
            foo_bucket{le="1e-05"} 0
            foo_bucket{le="0.0001"} 5
            foo_bucket{le="0.1"} 8
            foo_bucket{le="1.0"} 10
            foo_bucket{le="10.0"} 11
            foo_bucket{le="100000.0"} 11
            foo_bucket{le="1e+06"} 15
            foo_bucket{le="1e+23"} 16
            foo_bucket{le="1.1e+23"} 17
            foo_bucket{le="+Inf"} 17
            foo_count 17
            foo_sum 324789.3
            foo_created 1520430000.123

            """;
        ExpositionWriter writer = OpenMetricsWriter();

        writer.WriteHeader("foo", ExportedKind.Histogram, null);
        writer.WriteHistogram(
            "foo",
            Labels(),
            [0.0, 1e-05, 0.0001, 0.1, 1.0, 10.0, 100000.0, 1e+06, 1e+23, 1.1e+23],
            [0, 0, 5, 3, 2, 1, 0, 4, 1, 1, 0],
            324789.3,
            DateTimeOffset.FromUnixTimeMilliseconds(1520430000123));

        Assert.Equal(Expected.ReplaceLineEndings("\n"), writer.ToString());
    }

    [Theory]
    [InlineData("0.0 0.001 0.002 0.01 0.1 0.9 0.95 0.99 0.999 1.0 1.7 10.0")]
    [InlineData("1e-10 1e-09 1e-05 0.0001 0.1 1.0 100000.0 1e+06 1e+10")]
    public void WritesLeValuesAsTheSpecificationsCanonicalNumbers(string canonical)
    {
        string[] expected = canonical.Split(' ');
        double[] boundaries = [.. expected.Select(e => double.Parse(e, System.Globalization.CultureInfo.InvariantCulture))];
        ExpositionWriter writer = OpenMetricsWriter();

        writer.WriteHistogram("foo", Labels(), boundaries, new long[boundaries.Length + 1], 0);

        string[] les = [.. writer.ToString().Split('\n').Where(l => l.StartsWith("foo_bucket", StringComparison.Ordinal)).Select(l => l.Split('"')[1])];
        Assert.Equal([.. expected, "+Inf"], les);
    }

    [Theory]
    [InlineData(double.NaN, "NaN")]
    [InlineData(double.PositiveInfinity, "+Inf")]
    [InlineData(double.NegativeInfinity, "-Inf")]
    [InlineData(-1.0, "-1.0")]
    [InlineData(1.89e-7, "1.89e-07")]
    [InlineData(8903.123421, "8903.123421")]
    public void WritesFloatValuesWithAPointOrExponentAndTheSpecificationsSpecialValues(double value, string expected)
    {
        ExpositionWriter writer = OpenMetricsWriter();

        writer.WriteSample("foo", string.Empty, Labels(), null, 0, value);

        Assert.Equal($"foo {expected}\n", writer.ToString());
    }

    [Fact]
    public void EscapesHelpAndLabelValuesAsTheSpecification()
    {
        ExpositionWriter writer = OpenMetricsWriter();

        writer.WriteHeader("foo_seconds_total", ExportedKind.Counter, "Some text and \n some \" escaping", "seconds");
        writer.WriteSample("bar_seconds_count", string.Empty, LabelBlock.Create(new PrometheusTextWriter(), [], [new("a", "x"), new("b", "escaping\" example \n ")]), null, 0, 0L);
        writer.WriteSample("baz", string.Empty, LabelBlock.Create(new PrometheusTextWriter(), [], [new("a", "back\\slash")]), null, 0, 0L);

        Assert.Equal(
            "# TYPE foo_seconds counter\n# UNIT foo_seconds seconds\n# HELP foo_seconds Some text and \\n some \\\" escaping\n"
            + "bar_seconds_count{a=\"x\",b=\"escaping\\\" example \\n \"} 0\n"
            + "baz{a=\"back\\\\slash\"} 0\n",
            writer.ToString());
    }

    [Fact]
    public void WritesNoUnitLineWhereTheNameDoesNotEndWithTheUnit()
    {
        // The specification's invalid example: "# TYPE foo counter" with "# UNIT foo seconds".
        ExpositionWriter writer = OpenMetricsWriter();

        writer.WriteHeader("foo_total", ExportedKind.Counter, null, "seconds");

        Assert.Equal("# TYPE foo counter\n", writer.ToString());
    }

    [Fact]
    public void TheTextFormatKeepsItsRulesCreatedAndEofAreOpenmetricsOnly()
    {
        var writer = new TextFormatWriter();

        writer.WriteHeader("foo_total", ExportedKind.Counter, "a \"quoted\" help", "seconds");
        writer.WriteSample("foo_total", string.Empty, Labels(), null, 0, 17.0);
        writer.WriteCreated("foo_total", ExportedKind.Counter, Labels(), DateTimeOffset.FromUnixTimeSeconds(1));
        writer.WriteHeader("target_info", ExportedKind.Info, null);
        writer.WriteHistogram("h", Labels(), [1.0], [1, 0], 0.5, DateTimeOffset.FromUnixTimeSeconds(1));
        writer.WriteEnd();

        Assert.Equal(
            "# HELP foo_total a \"quoted\" help\n# TYPE foo_total counter\nfoo_total 17\n# TYPE target_info gauge\n"
            + "h_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 0.5\nh_count 1\n",
            writer.ToString());
    }

    [Fact]
    public void WritesNonAsciiAsUtf8AndALoneSurrogateAsTheReplacementCharacter()
    {
        // The ABNF's normal-char excludes only line feed, quote and backslash (and the surrogates,
        // which UTF-8 cannot carry): a lone surrogate becomes U+FFFD, as .NET's UTF-8 encoder writes it.
        ExpositionWriter writer = OpenMetricsWriter();

        writer.WriteHeader("foo", ExportedKind.Gauge, "naïve ✓ 日本 \uD800 end");
        writer.WriteSample("foo", string.Empty, LabelBlock.Create(new PrometheusTextWriter(), [], [new("a", "naïve ✓ 日本"), new("b", "x\uDC00y")]), null, 0, 1L);

        Assert.Equal("# TYPE foo gauge\n# HELP foo naïve ✓ 日本 \uFFFD end\nfoo{a=\"naïve ✓ 日本\",b=\"x\uFFFDy\"} 1\n", writer.ToString());
    }

    [Fact]
    public void ACounterSampleAndItsCreatedSampleAllocateNothingOnceWarm()
    {
        var fast = new OpenMetricsWriter(createdSamples: true);
        LabelBlock labels = Labels(("code", "200"));
        DateTimeOffset created = DateTimeOffset.FromUnixTimeMilliseconds(1520430000123);

        AllocationAssert.DoesNotAllocate(() =>
        {
            fast.Clear();
            fast.WriteHeader("foo_seconds_total", ExportedKind.Counter, "help", "seconds");
            fast.WriteSample("foo_seconds_total", string.Empty, labels, null, 0, 17.5);
            fast.WriteCreated("foo_seconds_total", ExportedKind.Counter, labels, created);
            fast.WriteEnd();
        });
        Assert.EndsWith("foo_seconds_created{code=\"200\"} 1520430000.123\n# EOF\n", fast.ToString());
    }

    [Fact]
    public void AWriterNotAskedForCreatedSamplesWritesNone()
    {
        var writer = new OpenMetricsWriter();
        LabelBlock labels = Labels(("code", "200"));

        writer.WriteHeader("foo_total", ExportedKind.Counter, null);
        writer.WriteSample("foo_total", string.Empty, labels, null, 0, 17L);
        writer.WriteCreated("foo_total", ExportedKind.Counter, labels, DateTimeOffset.FromUnixTimeMilliseconds(1520430000123));
        writer.WriteSummary("bar", labels, 2, 1.5, DateTimeOffset.FromUnixTimeMilliseconds(1520430000123));
        writer.WriteEnd();

        Assert.False(writer.CreatedSamples);
        Assert.Equal("# TYPE foo counter\nfoo_total{code=\"200\"} 17\nbar_count{code=\"200\"} 2\nbar_sum{code=\"200\"} 1.5\n# EOF\n", writer.ToString());
    }

    private static ExpositionWriter OpenMetricsWriter() => new OpenMetricsWriter(createdSamples: true);

    private static LabelBlock Labels(params (string Name, string Value)[] labels) =>
        LabelBlock.Create(new PrometheusTextWriter(), [.. labels.Select(l => new KeyValuePair<string, string>(l.Name, l.Value))], s_noTags);
}
