using ScalableMetrics.Naming;

namespace ScalableMetrics.Tests.Naming;

/// <summary>
/// Awkward tag sets through the public API, each checked against the series set as Prometheus
/// would store it: one exported identity (label names after sanitizing, values as printed,
/// empty labels dropped) per series, never two series with one identity, nothing lost.
/// </summary>
public class SeriesIdentityTests
{
    private static readonly object[][] s_rows =
    [
        // name, expected series, tag sets (one add of 1 each)
        ["200 as int, long, short, string and double", 1, new object[][] { ["code", 200], ["code", 200L], ["code", (short)200], ["code", "200"], ["code", 200.0] }],
        ["1L and 1.0", 1, new object[][] { ["v", 1L], ["v", 1.0] }],
        ["true and \"true\"", 1, new object[][] { ["ok", true], ["ok", "true"] }],
        ["http.route and http_route", 1, new object[][] { ["http.route", "/a"], ["http_route", "/a"], ["http-route", "/a"] }],
        ["an empty value beside the untagged series", 1, new object[][] { [], ["route", ""], ["other", ""] }],
        ["an empty value beside the same set without it", 1, new object[][] { ["a", "x"], ["a", "x", "b", ""] }],
        ["NaN, +Inf and their spellings", 2, new object[][] { ["v", double.NaN], ["v", "NaN"], ["v", double.PositiveInfinity], ["v", "+Inf"] }],
        ["a large double and its printed form", 1, new object[][] { ["v", 1e20], ["v", "1E+20"] }],
        ["lone surrogates that UTF-8 writes alike", 1, new object[][] { ["v", "\uD800"], ["v", "\uDBFF"], ["v", "\uFFFD"] }],
        ["0.0 and -0.0, equal doubles", 1, new object[][] { ["v", 0.0], ["v", -0.0] }],
        ["keys that differ by case are distinct labels", 2, new object[][] { ["route", "/a"], ["Route", "/a"] }],
        ["values that print differently stay distinct", 4, new object[][] { ["v", 1L], ["v", 1.5], ["v", "1.0"], ["v", false] }],
        ["a digit-first key and its sanitized form", 1, new object[][] { ["1st", "x"], ["key_1st", "x"] }],
        ["an underscore-first key and its sanitized form", 1, new object[][] { ["_internal", "x"], [".internal", "x"], ["key_internal", "x"] }],
        ["keys outside ASCII and their sanitized form", 1, new object[][] { ["ключ", "x"], ["κλει", "x"], ["key____", "x"] }],
    ];

    public static TheoryData<string> Rows => [.. s_rows.Select(r => (string)r[0])];

    [Theory]
    [MemberData(nameof(Rows))]
    public void TagSetsThatExportAlikeAreOneSeries(string row)
    {
        object[] data = s_rows.Single(r => (string)r[0] == row);
        var tagSets = (object[][])data[2];
        foreach (string storage in new[] { Storages.PerProcessorInterlocked, Storages.PerThread })
        {
            PartitionedCounter counter = new MetricRegistry(Storages.Options(storage)).CreateCounter("test.identity");
            OperationData operation = new MetricRegistry(Storages.Options(storage)).CreateOperationData("test.identity");
            foreach (object[] flat in tagSets)
            {
                KeyValuePair<string, object?>[] tags = ToTags(flat);
                counter.Add(1, tags);
                operation.Record(TimeSpan.FromMilliseconds(1), tags);
            }

            IReadOnlyList<CounterReading> readings = counter.Collect();
            AssertOneSeriesPerIdentity(readings.Select(r => r.Tags));
            Assert.Equal((int)data[1], readings.Count);
            Assert.Equal(tagSets.Length, readings.Sum(r => r.Value));
            Assert.All(readings, r => Assert.True(r.Value > 0));

            IReadOnlyList<OperationReading> operations = operation.Collect();
            AssertOneSeriesPerIdentity(operations.Select(r => r.Tags));
            Assert.Equal((int)data[1], operations.Count);
            Assert.Equal(tagSets.Length, operations.Sum(r => r.Count));
        }
    }

    [Fact]
    public void AMergedSeriesKeepsTheTagsItWasCreatedWithAndAliasesLookUpTheSameSeries()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.first");
        CounterSeries first = counter.Bind(new KeyValuePair<string, object?>("code", 200));
        Assert.Same(first, counter.Bind(new KeyValuePair<string, object?>("code", "200")));
        Assert.Same(first, counter.Bind(new KeyValuePair<string, object?>("code", "200")));
        Assert.Same(first, counter.Bind(new KeyValuePair<string, object?>("code", 200.0)));
        Assert.Equal(200L, Assert.Single(Assert.Single(counter.Collect()).Tags).Value);
        Assert.Same(counter.Bind(), counter.Bind(new KeyValuePair<string, object?>("route", "")));
    }

    [Fact]
    public void ZeroAsADoubleRecordsIntoTheSeriesOfItsLabelWhenMinusZeroCameFirst()
    {
        // -0.0 printed "-0" but equals 0.0 as a double, so 0.0 recorded into the series of -0.0,
        // which did not export as 0.0 and 0L do. A tag set takes -0.0 as 0.0: it prints "0", and
        // 0.0, 0L and -0.0 are one series, whichever came first (a float's -0.0 too).
        foreach (object minusZero in new object[] { -0.0, -0.0f })
        {
            PartitionedCounter counter = new MetricRegistry().CreateCounter("test.negative.zero");
            counter.Add(1, new KeyValuePair<string, object?>("v", minusZero));
            counter.Add(1, new KeyValuePair<string, object?>("v", 0L));
            counter.Add(1, new KeyValuePair<string, object?>("v", 0.0));

            IReadOnlyList<CounterReading> readings = counter.Collect();
            AssertOneSeriesPerIdentity(readings.Select(r => r.Tags));
            CounterReading zero = Assert.Single(readings);
            Assert.Equal("0", ExportedNames.FormatLabelValue(zero.Tags[0].Value));
            Assert.Equal(3, zero.Value);
        }
    }

    [Fact]
    public void TwoKeysOfOneTagSetThatExportAsOneLabelAreRefused()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.same.label");
        var e = Assert.Throws<ArgumentException>(() => counter.Add(1, new("http.route", "/a"), new("http_route", "/b")));
        Assert.Equal("tags", e.ParamName);
        Assert.Contains("'http_route'", e.Message);
        Assert.Throws<ArgumentException>(() => counter.Add(1, new("1x", "a"), new("key_1x", "b")));
        Assert.Throws<ArgumentException>(() => counter.Add(1, new("_internal", "a"), new("key_internal", "b")));
        e = Assert.Throws<ArgumentException>(() => counter.Add(1, new("ключ", "a"), new("κλει", "b")));
        Assert.Contains("'key____'", e.Message);
        Assert.Equal(0, counter.SeriesCount);
    }

    // A key of characters outside ASCII sanitizes to underscores and then gets 'key' before it, as
    // any key whose label would begin with '_' does ('ключ' is 'key____', '.-job' 'key__job'): no label
    // Prometheus keeps for its own, so the key is taken. It was refused as "reserved ('__' prefix)",
    // a name the exposition never wrote. A key written with '__' first is still refused, and says so.
    [Fact]
    public void AKeyThatSanitizesToLeadingUnderscoresIsTakenUnderItsPrefixedLabel()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.non.ascii");
        counter.Add(1, new KeyValuePair<string, object?>("ключ", "a"));
        counter.Add(1, new KeyValuePair<string, object?>("日本", "b"));
        counter.Add(1, new KeyValuePair<string, object?>(".-job", "c"));

        IReadOnlyList<CounterReading> readings = counter.Collect();
        Assert.Equal(3, readings.Count);
        Assert.Equal(["key__", "key____", "key__job"], readings.Select(r => Assert.Single(SeriesIdentity.Labels(r.Tags)).Key).Order(StringComparer.Ordinal));
        Assert.False(ExportedNames.IsReservedLabel("ключ"));
        var e = Assert.Throws<ArgumentException>(() => counter.Add(1, new KeyValuePair<string, object?>("__job", "d")));
        Assert.Contains("starts with '__'", e.Message);
        Assert.Equal(3, counter.SeriesCount);
    }

    [Theory]
    [InlineData("otel_scope_name")]
    [InlineData("otel.scope.name")]
    [InlineData("otel_scope_version")]
    [InlineData("otel-scope-anything")]
    [InlineData("otel.metric.overflow")]
    [InlineData("otel_metric_overflow")]
    [InlineData("le")]
    [InlineData("quantile")]
    [InlineData("__name__")]
    public void TagsNamedLikeLabelsTheExpositionWritesAreRefused(string key)
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = 2 });
        PartitionedCounter counter = registry.CreateCounter("test.reserved");
        var tag = new KeyValuePair<string, object?>(key, "<meter>;evil");
        var e = Assert.Throws<ArgumentException>(() => counter.Add(1, tag));
        Assert.Equal("tags", e.ParamName);
        Assert.Contains("reserved", e.Message);

        // Past the series limit, on the path that allocates nothing, too.
        counter.Add(1, new KeyValuePair<string, object?>("a", 1));
        counter.Add(1, new KeyValuePair<string, object?>("a", 2));
        counter.Add(1, new KeyValuePair<string, object?>("a", 3));
        Assert.Throws<ArgumentException>(() => counter.Add(1, tag));
        Assert.Throws<ArgumentException>(() => registry.CreateOperationData("test.reserved.op").Start(tag));
        Assert.Equal(3, counter.Collect().Sum(r => r.Value));
    }

    [Fact]
    public void OtherMetersScopeLikeKeysAreFine()
    {
        PartitionedCounter counter = new MetricRegistry().CreateCounter("test.scope.like");
        counter.Add(1, new("otel_scope", "x"), new("scope_name", "y"), new("lex", "z"), new("_private", "w"));
        Assert.Equal(1, counter.SeriesCount);
    }

    internal static void AssertOneSeriesPerIdentity(IEnumerable<TagSet> series)
    {
        var identities = new List<KeyValuePair<string, string>[]>();
        foreach (TagSet tags in series)
        {
            KeyValuePair<string, string>[] labels = SeriesIdentity.Labels(tags);
            Assert.True(!identities.Exists(seen => SeriesIdentity.Equal(seen, labels)), $"Two series export as {tags}.");
            identities.Add(labels);
        }
    }

    private static KeyValuePair<string, object?>[] ToTags(object[] flat) =>
        [.. Enumerable.Range(0, flat.Length / 2).Select(i => new KeyValuePair<string, object?>((string)flat[2 * i], flat[(2 * i) + 1]))];
}
