using System.Diagnostics.Metrics;
using System.Text;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry;

/// <summary>The text the exporter writes for real OpenTelemetry metrics of every type.</summary>
public sealed class PrometheusSerializerTests
{
    [Fact]
    public async Task LongCounterIsACounterWithTotalSuffixScopeLabelAndSortedTags()
    {
        using var harness = new ExporterHarness();
        Counter<long> counter = harness.Meter.CreateCounter<long>("http.server.requests", "{request}", "Requests handled.");
        counter.Add(2, new("http.route", "/a"), new("code", 200));
        counter.Add(1, new("code", 200), new("http.route", "/a"));

        Assert.Equal(
            harness.Expected("""
            # HELP http_server_requests_total Requests handled.
            # TYPE http_server_requests_total counter
            http_server_requests_total{otel_scope_name="SCOPE_NAME",code="200",http_route="/a"} 3

            """),
            await harness.ScrapeAsync());
    }

    [Fact]
    public async Task DoubleCounterInSecondsGetsSecondsThenTotal()
    {
        using var harness = new ExporterHarness();
        Counter<double> counter = harness.Meter.CreateCounter<double>("job.duration", "s", "Time in jobs.");
        counter.Add(1.25);
        counter.Add(0.25);

        Assert.Equal(
            harness.Expected("""
            # HELP job_duration_seconds_total Time in jobs.
            # TYPE job_duration_seconds_total counter
            job_duration_seconds_total{otel_scope_name="SCOPE_NAME"} 1.5

            """),
            await harness.ScrapeAsync());
    }

    [Fact]
    public async Task NonMonotonicSumsAndGaugesAreGaugesAndUnit1GaugesGetRatio()
    {
        using var harness = new ExporterHarness();
        UpDownCounter<long> queue = harness.Meter.CreateUpDownCounter<long>("queue.length", "{item}", "Items queued.");
        queue.Add(3);
        queue.Add(-5);
        harness.Meter.CreateObservableGauge("cpu.utilization", () => 0.25, "1", "CPU busy.");
        Gauge<long> temperature = harness.Meter.CreateGauge<long>("room.temperature", "Cel");
        temperature.Record(21);

        string text = await harness.ScrapeAsync();

        Assert.Contains(
            harness.Expected("""
            # HELP queue_length Items queued.
            # TYPE queue_length gauge
            queue_length{otel_scope_name="SCOPE_NAME"} -2

            """),
            text);
        Assert.Contains(
            harness.Expected("""
            # HELP cpu_utilization_ratio CPU busy.
            # TYPE cpu_utilization_ratio gauge
            cpu_utilization_ratio{otel_scope_name="SCOPE_NAME"} 0.25

            """),
            text);

        // No description: no HELP line.
        Assert.Contains(
            harness.Expected("""
            # TYPE room_temperature_celsius gauge
            room_temperature_celsius{otel_scope_name="SCOPE_NAME"} 21

            """),
            text);
        Assert.DoesNotContain("# HELP room_temperature", text);
    }

    [Fact]
    public async Task HistogramHasCumulativeBucketsWithInfThenSumAndCount()
    {
        using var harness = new ExporterHarness(configure: builder =>
            builder.AddView("request.latency", new ExplicitBucketHistogramConfiguration { Boundaries = [10, 100] }));
        Histogram<double> latency = harness.Meter.CreateHistogram<double>("request.latency", "ms", "Latency.");
        foreach (double value in new[] { 5.0, 50, 500, 50.5 })
        {
            latency.Record(value, new KeyValuePair<string, object?>("route", "/x"));
        }

        Assert.Equal(
            harness.Expected("""
            # HELP request_latency_milliseconds Latency.
            # TYPE request_latency_milliseconds histogram
            request_latency_milliseconds_bucket{otel_scope_name="SCOPE_NAME",route="/x",le="10"} 1
            request_latency_milliseconds_bucket{otel_scope_name="SCOPE_NAME",route="/x",le="100"} 3
            request_latency_milliseconds_bucket{otel_scope_name="SCOPE_NAME",route="/x",le="+Inf"} 4
            request_latency_milliseconds_sum{otel_scope_name="SCOPE_NAME",route="/x"} 605.5
            request_latency_milliseconds_count{otel_scope_name="SCOPE_NAME",route="/x"} 4

            """),
            await harness.ScrapeAsync());
    }

    [Fact]
    public async Task ExponentialHistogramsAreWrittenAsTheirBucketsInText()
    {
        using var harness = new ExporterHarness(configure: builder =>
            builder.AddView("sizes", new Base2ExponentialBucketHistogramConfiguration()));
        Histogram<long> sizes = harness.Meter.CreateHistogram<long>("sizes", "By");
        sizes.Record(0);
        sizes.Record(100);
        harness.Meter.CreateCounter<long>("kept").Add(1);

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(await harness.ScrapeAsync());

        // The zero bucket (le 0), then 100's bucket at scale 20: (100 / 2^(2^-20), 100], le its upper bound.
        List<PrometheusSample> buckets = [.. samples.Where(s => s.Name == "sizes_bytes_bucket")];
        Assert.Equal(3, buckets.Count);
        Assert.Equal(("0", 1.0), (buckets[0].Labels["le"], buckets[0].NumericValue));
        double upperBound = double.Parse(buckets[1].Labels["le"], System.Globalization.CultureInfo.InvariantCulture);
        Assert.InRange(upperBound, 100, 100 * Math.Pow(2, Math.Pow(2, -20)));
        Assert.Equal(2.0, buckets[1].NumericValue);
        Assert.Equal(("+Inf", 2.0), (buckets[2].Labels["le"], buckets[2].NumericValue));
        Assert.Equal(100, PrometheusText.Single(samples, "sizes_bytes_sum").NumericValue);
        Assert.Equal(2, PrometheusText.Single(samples, "sizes_bytes_count").NumericValue);
        Assert.Equal(1, PrometheusText.Single(samples, "kept_total").NumericValue);
    }

    // metrics.proto (Histogram.schema): "Currently, valid numbers are -4 <= n <= 8." OpenTelemetry's
    // exponential histograms start at scale 20 and go down only as far as their 160 buckets need:
    // values from 1.5 to 1.6 stay at scale 10, whose buckets are merged into schema 8's, counts exact.
    [Fact]
    public void AnExponentialHistogramOfAScaleAbove8IsWrittenInProtobufAtSchema8WithItsBucketsMerged()
    {
        using var harness = new ExporterHarness(configure: builder =>
            builder.AddView("latency", new Base2ExponentialBucketHistogramConfiguration()));
        Histogram<double> latency = harness.Meter.CreateHistogram<double>("latency", "s");
        double[] values = [1.5, 1.5, 1.5001, 1.55, 1.6];
        foreach (double value in values)
        {
            latency.Record(value);
        }

        ExpositionWriter output = ExpositionFormat.Of(PrometheusExpositionFormat.Protobuf).CreateWriter();
        harness.Exporter.WriteCollection(output, new HashSet<string>(StringComparer.Ordinal), _ => { });
        using var stream = new MemoryStream(output.ToArray());
        Io.Prometheus.Client.MetricFamily family = Io.Prometheus.Client.MetricFamily.Parser.ParseDelimitedFrom(stream);
        Io.Prometheus.Client.Histogram histogram = Assert.Single(family.Metric).Histogram;

        // Prometheus' bucket of v at schema 8 is the one of upper bound 2^(k / 256) at or above it: k = ceil(256 log2 v).
        Dictionary<int, long> expected = values
            .GroupBy(static v => (int)Math.Ceiling(256 * Math.Log2(v)))
            .ToDictionary(static g => g.Key, static g => (long)g.Count());
        var written = new Dictionary<int, long>();
        int index = 0;
        int delta = 0;
        long count = 0;
        foreach (Io.Prometheus.Client.BucketSpan span in histogram.PositiveSpan)
        {
            index += span.Offset;
            for (int i = 0; i < span.Length; i++, index++)
            {
                count += histogram.PositiveDelta[delta++];
                if (count != 0)
                {
                    written.Add(index, count);
                }
            }
        }

        Assert.Equal(8, histogram.Schema);
        Assert.Equal(histogram.PositiveDelta.Count, delta);
        Assert.Equal(expected.OrderBy(static b => b.Key), written.OrderBy(static b => b.Key));
        Assert.Equal((ulong)values.Length, histogram.SampleCount);
    }

    // metrics.proto (Histogram.schema): "Currently, valid numbers are -4 <= n <= 8." OpenTelemetry
    // .NET takes a MaxScale from -11 to 20, so one of its exponential histograms may be at scale -6:
    // written as the text formats write it, classic buckets, exact, and no native field.
    [Fact]
    public void AnExponentialHistogramOfAScaleBelowMinus4IsWrittenInProtobufAsClassicBuckets()
    {
        using var harness = new ExporterHarness(configure: builder =>
            builder.AddView("latency", new Base2ExponentialBucketHistogramConfiguration { MaxScale = -6 }));
        Histogram<double> latency = harness.Meter.CreateHistogram<double>("latency", "s");
        latency.Record(3.0);
        latency.Record(1e6);

        ExpositionWriter output = ExpositionFormat.Of(PrometheusExpositionFormat.Protobuf).CreateWriter();
        harness.Exporter.WriteCollection(output, new HashSet<string>(StringComparer.Ordinal), _ => { });
        using var stream = new MemoryStream(output.ToArray());
        Io.Prometheus.Client.MetricFamily family = Io.Prometheus.Client.MetricFamily.Parser.ParseDelimitedFrom(stream);
        Io.Prometheus.Client.Histogram histogram = Assert.Single(family.Metric).Histogram;

        Assert.Equal(2UL, histogram.SampleCount);
        Assert.Equal(1e6 + 3.0, histogram.SampleSum);
        Assert.False(histogram.HasSchema);
        Assert.Empty(histogram.PositiveSpan);
        Assert.False(histogram.HasZeroThreshold);

        // Scale -6: base 2^64, so 3 is in (1, 2^64] and 1e6 too: one bucket, le = 2^64, holding both.
        Io.Prometheus.Client.Bucket bucket = Assert.Single(histogram.Bucket);
        Assert.Equal(Math.Pow(2, 64), bucket.UpperBound);
        Assert.Equal(2UL, bucket.CumulativeCount);
    }

    [Fact]
    public async Task LabelValuesAndHelpAreEscaped()
    {
        using var harness = new ExporterHarness();
        Counter<long> counter = harness.Meter.CreateCounter<long>("escapes", description: "Line one\nback\\slash \"quoted\"");
        counter.Add(1, new KeyValuePair<string, object?>("path", "a\\b\"c\nd"));

        string text = await harness.ScrapeAsync();

        Assert.Contains("# HELP escapes_total Line one\\nback\\\\slash \"quoted\"\n", text);
        Assert.Contains("path=\"a\\\\b\\\"c\\nd\"", text);
        PrometheusSample sample = PrometheusText.Single(PrometheusText.Parse(text), "escapes_total");
        Assert.Equal("a\\b\"c\nd", sample.Labels["path"]);
    }

    [Fact]
    public async Task LabelNamesAreSanitizedAndCollidingKeysMergedInKeyOrder()
    {
        using var harness = new ExporterHarness();
        Counter<long> counter = harness.Meter.CreateCounter<long>("labels");
        counter.Add(
            1,
            new("http.method", "GET"),
            new("1st", "one"),
            new("__reserved", "r"),
            new("a_b", "second"),
            new("a.b", "first"),
            new("enabled", true),
            new("ratio", 1.5),
            new("count", 7));

        PrometheusSample sample = PrometheusText.Single(PrometheusText.Parse(await harness.ScrapeAsync()), "labels_total");

        Assert.Equal(
            new Dictionary<string, string>
            {
                ["otel_scope_name"] = harness.MeterName,
                ["http_method"] = "GET",
                ["key_1st"] = "one",
                ["key__reserved"] = "r",
                ["a_b"] = "first;second",
                ["enabled"] = "true",
                ["ratio"] = "1.5",
                ["count"] = "7",
            },
            sample.Labels);
    }

    [Fact]
    public async Task MeterVersionAndTagsBecomeScopeLabels()
    {
        using var harness = new ExporterHarness(meterVersion: "1.2.3");
        harness.Meter.CreateCounter<long>("versioned").Add(4);

        PrometheusSample sample = PrometheusText.Single(PrometheusText.Parse(await harness.ScrapeAsync()), "versioned_total");

        Assert.Equal(harness.MeterName, sample.Labels["otel_scope_name"]);
        Assert.Equal("1.2.3", sample.Labels["otel_scope_version"]);
        Assert.Equal("4", sample.Value);
    }

    // OpenTelemetry's Prometheus compatibility specification, "Instrumentation Scope": scope
    // attributes that, after the otel_scope_ prefix and the label-name conversion, would conflict
    // with otel_scope_name or otel_scope_version MUST be dropped. Prometheus rejects a sample with a
    // label name given twice ("duplicate label names"), and with it the whole scrape.
    [Fact]
    public async Task MeterTagsNamedNameOrVersionAreDroppedRatherThanWrittenAsSecondScopeLabels()
    {
        string taggedMeterName = "test.tagged." + Guid.NewGuid().ToString("N");
        using var harness = new ExporterHarness(configure: builder => builder.AddMeter(taggedMeterName));
        using var tagged = new Meter(new MeterOptions(taggedMeterName)
        {
            Version = "1.2.3",
            Tags = [new("name", "spoofed"), new("version", "9.9.9"), new("team", "core")],
        });
        tagged.CreateCounter<long>("tagged.requests").Add(5);

        PrometheusSample sample = PrometheusText.Single(PrometheusText.Parse(await harness.ScrapeAsync()), "tagged_requests_total");

        Assert.Equal(taggedMeterName, sample.Labels["otel_scope_name"]);
        Assert.Equal("1.2.3", sample.Labels["otel_scope_version"]);
        Assert.Equal("core", sample.Labels["otel_scope_team"]);
    }

    // The same specification: exporters MUST add "the scope schema URL as the otel_scope_schema_url
    // label" (OTLP carries it as ScopeMetrics.schema_url); a meter tag schema_url would conflict
    // with it and is dropped. A meter without one has no such label (the tests above).
    [Fact]
    public async Task AMetersSchemaUrlIsWrittenAsOtelScopeSchemaUrl()
    {
        string schemaMeterName = "test.schema." + Guid.NewGuid().ToString("N");
        using var harness = new ExporterHarness(configure: builder => builder.AddMeter(schemaMeterName));
        using var withSchema = new Meter(new MeterOptions(schemaMeterName)
        {
            TelemetrySchemaUrl = "https://opentelemetry.io/schemas/1.30.0",
            Tags = [new("schema_url", "spoofed")],
        });
        withSchema.CreateCounter<long>("schema.requests").Add(1);

        PrometheusSample sample = PrometheusText.Single(PrometheusText.Parse(await harness.ScrapeAsync()), "schema_requests_total");

        Assert.Equal("https://opentelemetry.io/schemas/1.30.0", sample.Labels["otel_scope_schema_url"]);
        Assert.Equal(["otel_scope_name", "otel_scope_schema_url"], sample.Labels.Keys.Order(StringComparer.Ordinal));
    }

    // The same specification: scope attributes follow the "Metric Attributes" rules, under which
    // keys that map to one Prometheus label have their values joined by ';' in the order of the
    // original keys, as LabelNamesAreSanitizedAndCollidingKeysMergedInKeyOrder shows for a point's.
    [Fact]
    public async Task MeterTagsThatSanitizeToOneLabelAreMergedInKeyOrder()
    {
        string taggedMeterName = "test.tagged." + Guid.NewGuid().ToString("N");
        using var harness = new ExporterHarness(configure: builder => builder.AddMeter(taggedMeterName));
        using var tagged = new Meter(new MeterOptions(taggedMeterName)
        {
            Tags = [new("deployment_env", "second"), new("deployment.env", "first")],
        });
        tagged.CreateCounter<long>("tagged.requests").Add(5);

        PrometheusSample sample = PrometheusText.Single(PrometheusText.Parse(await harness.ScrapeAsync()), "tagged_requests_total");

        Assert.Equal("first;second", sample.Labels["otel_scope_deployment_env"]);
    }

    // A histogram's bucket samples carry the label le, which the writer adds itself. The registry
    // refuses a tag key le (docs/how-it-works.md: keys that would spoof a label the exposition
    // writes), and LabelBlock renames a point's otel_scope_* so that no tag passes for a label
    // written by the exposition; a point's le is written as it is, beside the bucket's, and
    // Prometheus rejects a sample with a label name given twice.
    [Fact]
    public async Task AHistogramPointsTagNamedLeIsNotWrittenBesideTheBucketsLe()
    {
        using var harness = new ExporterHarness();
        Histogram<double> histogram = harness.Meter.CreateHistogram<double>("queue.wait", "s");
        histogram.Record(0.2, new KeyValuePair<string, object?>("le", "priority"));

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(await harness.ScrapeAsync());

        Assert.Equal("1", PrometheusText.Single(samples, "queue_wait_seconds_bucket", ("le", "+Inf")).Value);
    }

    [Fact]
    public async Task SameFamilyFromTwoMetersIsWrittenOnceWithSamplesTogether()
    {
        string otherMeterName = "test.other." + Guid.NewGuid().ToString("N");
        using var other = new Meter(otherMeterName);
        using var harness = new ExporterHarness(configure: builder => builder.AddMeter(otherMeterName));
        harness.Meter.CreateCounter<long>("shared.name", description: "Shared.").Add(1);
        harness.Meter.CreateCounter<long>("between").Add(1);
        other.CreateCounter<long>("shared.name", description: "Shared.").Add(2);

        string text = await harness.ScrapeAsync();

        string[] lines = text.Split('\n');
        Assert.Single(lines, line => line == "# TYPE shared_name_total counter");
        int type = Array.IndexOf(lines, "# TYPE shared_name_total counter");
        Assert.StartsWith("shared_name_total{", lines[type + 1]);
        Assert.StartsWith("shared_name_total{", lines[type + 2]);
        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(text);
        Assert.Equal("1", PrometheusText.Single(samples, "shared_name_total", ("otel_scope_name", harness.MeterName)).Value);
        Assert.Equal("2", PrometheusText.Single(samples, "shared_name_total", ("otel_scope_name", otherMeterName)).Value);
    }

    // OpenTelemetry keeps "a.b" and "a_b" of one meter apart (different names), but both are the
    // family a_b_total with the same scope labels: written together, their series with equal tags
    // are one series to Prometheus, two samples of it in one scrape. The serializer's remarks: what
    // the scrape shows is never what Prometheus would store as one; the second is left out and reported.
    [Fact]
    public void TwoMetricsOfOneMeterThatSanitizeToOneFamilyAreNotWrittenAsOneSeriesTwice()
    {
        using var harness = new ExporterHarness();
        harness.Meter.CreateCounter<long>("jobs.done").Add(1, new KeyValuePair<string, object?>("queue", "a"));
        harness.Meter.CreateCounter<long>("jobs_done").Add(2, new KeyValuePair<string, object?>("queue", "a"));
        var leftOut = new List<string>();

        ExpositionWriter output = ExpositionFormat.Of(PrometheusExpositionFormat.Text).CreateWriter();
        harness.Exporter.WriteCollection(output, new HashSet<string>(StringComparer.Ordinal), leftOut.Add);
        output.WriteEnd();

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(Encoding.UTF8.GetString(output.ToArray()));
        Assert.Single(samples, static sample => sample.Name == "jobs_done_total");
        Assert.Equal(["jobs_done_total"], leftOut);
    }

    // OpenMetrics 1.0: MetricFamily names MUST be unique within a MetricSet, and a family's name
    // must not meet another's sample names. A gauge foo and a counter foo are both family foo; a
    // gauge foo_created is counter foo's _created sample. Left out in every format alike.
    [Theory]
    [InlineData(PrometheusExpositionFormat.Text, "foo")]
    [InlineData(PrometheusExpositionFormat.OpenMetrics, "foo")]
    [InlineData(PrometheusExpositionFormat.Protobuf, "foo")]
    [InlineData(PrometheusExpositionFormat.Text, "foo_created")]
    [InlineData(PrometheusExpositionFormat.OpenMetrics, "foo_created")]
    [InlineData(PrometheusExpositionFormat.Protobuf, "foo_created")]
    public void AnotherMetersFamilyThatMeetsTheNamesOfOneWrittenBeforeIsLeftOutAndReported(PrometheusExpositionFormat format, string gaugeName)
    {
        string otherMeterName = "test.other." + Guid.NewGuid().ToString("N");
        using var harness = new ExporterHarness(configure: builder => builder.AddMeter(otherMeterName));
        using var other = new Meter(otherMeterName);
        harness.Meter.CreateObservableGauge(gaugeName, () => 1L);
        other.CreateCounter<long>("foo").Add(2);
        var leftOut = new List<string>();

        ExpositionWriter output = ExpositionFormat.Of(format).CreateWriter();
        harness.Exporter.WriteCollection(output, new HashSet<string>(StringComparer.Ordinal), leftOut.Add);
        output.WriteEnd();

        Assert.Equal([gaugeName], FamilyNames(format, output.ToArray()));
        Assert.Equal(["foo_total"], leftOut);
    }

    [Fact]
    public async Task EveryLineIsWellFormedAndSpecialDoublesAreSpelledAsPrometheusParsesThem()
    {
        using var harness = new ExporterHarness();
        harness.Meter.CreateObservableGauge("special.values", () => new[]
        {
            new Measurement<double>(double.PositiveInfinity, new KeyValuePair<string, object?>("v", "inf")),
            new Measurement<double>(double.NegativeInfinity, new KeyValuePair<string, object?>("v", "-inf")),
            new Measurement<double>(double.NaN, new KeyValuePair<string, object?>("v", "nan")),
            new Measurement<double>(1e-7, new KeyValuePair<string, object?>("v", "tiny")),
        });

        IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(await harness.ScrapeAsync());

        Assert.Equal("+Inf", PrometheusText.Single(samples, "special_values", ("v", "inf")).Value);
        Assert.Equal("-Inf", PrometheusText.Single(samples, "special_values", ("v", "-inf")).Value);
        Assert.Equal("NaN", PrometheusText.Single(samples, "special_values", ("v", "nan")).Value);
        Assert.Equal(1e-7, PrometheusText.Single(samples, "special_values", ("v", "tiny")).NumericValue);
    }

    // The family names a scrape body declares: its TYPE lines, or its protobuf families.
    private static List<string> FamilyNames(PrometheusExpositionFormat format, byte[] body)
    {
        if (format != PrometheusExpositionFormat.Protobuf)
        {
            return [.. Encoding.UTF8.GetString(body).Split('\n').Where(static l => l.StartsWith("# TYPE ", StringComparison.Ordinal)).Select(static l => l.Split(' ')[2])];
        }

        var names = new List<string>();
        using var stream = new MemoryStream(body);
        while (stream.Position < stream.Length)
        {
            names.Add(Io.Prometheus.Client.MetricFamily.Parser.ParseDelimitedFrom(stream).Name);
        }

        return names;
    }
}
