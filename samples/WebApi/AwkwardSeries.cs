using System.Diagnostics.Metrics;

namespace ScalableMetrics.Samples.WebApi;

/// <summary>
/// A fixed set of series with awkward names and tags and known values, recorded at start when the
/// configuration says <c>Sample:AwkwardSeries=true</c> (e.g. <c>--Sample:AwkwardSeries=true</c>), so
/// that <c>scripts/e2e.sh</c> can check that a real Prometheus reads back each exact value.
/// </summary>
/// <remarks>
/// Each awkward case has an instrument of its own, so that no two cases could be taken for one
/// series. <c>scripts/e2e-check-prometheus.py</c> holds the expected series; keep the two in step.
/// </remarks>
public static class AwkwardSeries
{
    /// <summary>The configuration key that turns the awkward series on.</summary>
    public const string ConfigurationKey = "Sample:AwkwardSeries";

    /// <summary>How many tag sets the overflow case records into, one each: 50 more than the default series limit (2000).</summary>
    public const int OverflowTagSets = 2050;

    /// <summary>Records every awkward series into <paramref name="registry"/>.</summary>
    /// <param name="registry">The sample's registry.</param>
    public static void Record(MetricRegistry registry)
    {
        ArgumentNullException.ThrowIfNull(registry);
        registry.CreateCounter("awkward.dotted-name/with.slash", "{item}", "Dots, a dash and a slash in the name.").Add(11);
        registry.CreateCounter("awkward.quotes", description: "A \"quoted\" help with a back\\slash\nand a second line.").Add(12, Tag("path", "say \"hi\" \\ back\\slash"));
        registry.CreateCounter("awkward.newline", description: "A newline in a tag value.").Add(13, Tag("note", "line1\nline2"));
        registry.CreateCounter("awkward.unicode", description: "Unicode in a tag key and value.").Add(14, Tag("città", "naïve ✓ 日本"));
        registry.CreateCounter("awkward.empty", description: "An empty tag value, which Prometheus stores as no label.").Add(15, Tag("a", string.Empty), Tag("b", "x"));
        registry.CreateCounter("awkward.status.int", description: "A status code tagged as a number.").Add(16, Tag("code", 200));
        registry.CreateCounter("awkward.status.string", description: "A status code tagged as a string.").Add(17, Tag("code", "200"));
        registry.CreateCounter("awkward.sent", "By", "A unit that becomes a suffix.").Add(18, Tag("dir", "in"));

        // Tag sets that Prometheus would store as one series are one series of the registry: the
        // scrape must show one sample holding all of them (1 + 2 + 3 + 4 + 5 + 6 = 21), and one
        // untagged sample holding the empty-valued tag's and the untagged adds (7 + 8 = 15).
        PartitionedCounter merged = registry.CreateCounter("awkward.merged", description: "Tag sets that export alike, merged into one series.");
        merged.Add(1, Tag("code", 200));
        merged.Add(2, Tag("code", "200"));
        merged.Add(3, Tag("code", 200.0));
        merged.Add(4, Tag("code", (byte)200));
        merged.Add(5, Tag("code", 200L));
        merged.Add(6, Tag("code", "200"));
        merged.Add(7, Tag("a", string.Empty));
        merged.Add(8);
        PartitionedCounter spellings = registry.CreateCounter("awkward.spellings", description: "Tag keys that sanitize alike, merged into one series.");
        spellings.Add(30, Tag("http.route", "/x"));
        spellings.Add(40, Tag("http_route", "/x"));
        spellings.Add(50, Tag("http-route", "/x"));

        OperationData operation = registry.CreateOperationData("awkward.op-time", "A dash in an operation's name.");
        operation.Record(TimeSpan.FromMilliseconds(250), Tag("db", "users"));
        operation.Record(TimeSpan.FromMilliseconds(250), Tag("db", "users"));

        PartitionedDoubleCounter doubles = registry.CreateDoubleCounter("awkward.double", description: "A double counter.");
        doubles.Add(0.25, Tag("dir", "in"));
        doubles.Add(0.25, Tag("dir", "in"));
        registry.CreateUpDownCounter("awkward.up-down", description: "An up-down counter below zero.").Add(-7, Tag("queue", "q"));
        PartitionedDoubleUpDownCounter doubleUpDown = registry.CreateDoubleUpDownCounter("awkward.double-up-down", description: "A double up-down counter below zero.");
        doubleUpDown.Add(0.25);
        doubleUpDown.Add(-0.5);
        Gauge gauge = registry.CreateGauge("awkward.last-set", description: "A gauge set twice, last below zero.");
        gauge.Set(5, Tag("pool", "p"));
        gauge.Set(-3, Tag("pool", "p"));
        registry.CreateDoubleGauge("awkward.fraction", "1", "A double gauge of unit 1, so _ratio.").Set(0.75);
        registry.CreateObservableCounter("awkward.observed", static () => [new Measurement<long>(42, Tag("source", "callback"))], description: "An observable counter.");
        registry.CreateObservableGauge("awkward.observed-level", static () => [new Measurement<double>(-1.5)], description: "An observable gauge below zero.");
        registry.CreateObservableGauge("awkward.throwing", Unplugged, description: "A callback that throws: left out of every scrape, logged, the rest of the scrape intact.");

        // 2^-17 (below 1e-05), 0.5, 2 and 2^22 (above 1e+06): one value per bucket; every partial sum is exact.
        PartitionedHistogram histogram = registry.CreateHistogram("awkward.buckets", description: "A histogram whose boundaries Go spells with exponents.", boundaries: [0.00001, 1, 1000000]);
        foreach (double value in (double[])[Math.ScaleB(1, -17), 0.5, 2, Math.ScaleB(1, 22)])
        {
            histogram.Record(value, Tag("k", "v"));
        }

        OperationData bucketed = registry.CreateOperationData("awkward.op-buckets", "An operation with bucket boundaries: a histogram.", [0.1, 1]);
        bucketed.Record(TimeSpan.FromMilliseconds(250), Tag("db", "users"));
        bucketed.Record(TimeSpan.FromMilliseconds(250), Tag("db", "users"));

        PartitionedCounter overflow = registry.CreateCounter("awkward.overflow", description: "More tag sets than the series limit.");
        for (int i = 0; i < OverflowTagSets; i++)
        {
            overflow.Add(1, Tag("n", i));
        }
    }

    private static IEnumerable<Measurement<long>> Unplugged() => throw new InvalidOperationException("The awkward callback always fails.");

    private static KeyValuePair<string, object?> Tag(string key, object? value) => new(key, value);
}
