using System.Diagnostics.Metrics;
using System.Numerics;
using ScalableMetrics.Cells;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;
using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Instruments.Histograms;
using ScalableMetrics.Instruments.Observables;
using ScalableMetrics.Naming;
using ScalableMetrics.Platform.Rseq;
using ScalableMetrics.Tags;
using ScalableMetrics.Views;

namespace ScalableMetrics;

/// <summary>
/// Creates and holds partitioned instruments, and tells observers (such as the OpenTelemetry
/// bridge) about each one. Thread-safe.
/// </summary>
/// <remarks>
/// <para>Instrument names are unique per registry, compared case-insensitively as OpenTelemetry
/// identifies instruments: creating an instrument again with the same name, kind and unit returns
/// the existing one. An <see cref="OperationData"/> also takes the name its count is published under
/// (its name followed by <see cref="OperationData.CountNameSuffix"/>).</para>
/// <para>Exported names are unique too: an instrument whose Prometheus family, sample or
/// <c>_created</c> name (after sanitizing and unit suffixes) equals one of an existing instrument's
/// is refused, so that two instruments never export as one family (<c>coll.a</c> and <c>coll_a</c>;
/// <c>req</c> and <c>req.total</c>; a counter <c>lat_seconds</c> of unit <c>s</c> and an operation <c>lat</c>).</para>
/// <para>At most <see cref="MaxInstruments"/> instruments are created.</para>
/// </remarks>
public sealed class MetricRegistry
{
    // Every instrument and exported name taken, to the instrument that took it.
    private readonly NameReservations _names;
    private readonly List<Instrument> _instruments = [];

    // The same instruments as every collection reads them, replaced whole at each creation
    // (instruments are never removed): read without the lock, and without a copy per read.
    private Instrument[] _collected = [];
    private readonly List<Action<Instrument>> _observers = [];
    private readonly Lock _lock = new();
    private readonly TagLimits _tagLimits;
    private readonly ViewSet _views;

    // Instruments a view drops, by the name asked for: returned to record into, never exported.
    private readonly Dictionary<string, Instrument> _dropped = new(StringComparer.OrdinalIgnoreCase);

    // Every series' slots, one region per partition (see PartitionArena).
    private readonly PartitionArena _arena;

    /// <summary>Creates a registry with the default <see cref="MetricRegistryOptions"/>.</summary>
    public MetricRegistry()
        : this(new MetricRegistryOptions())
    {
    }

    /// <summary>Creates a registry.</summary>
    /// <param name="options">Its settings, read once here.</param>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><see cref="MetricRegistryOptions.MaxSeriesPerInstrument"/> is below 2,
    /// <see cref="MetricRegistryOptions.MaxInstruments"/>, <see cref="MetricRegistryOptions.MaxTagKeyLength"/> or
    /// <see cref="MetricRegistryOptions.MaxTagValueLength"/> is below 1, <see cref="MetricRegistryOptions.MaxTagsPerSeries"/>
    /// is not from 1 to <see cref="MetricRegistryOptions.MaxMaxTagsPerSeries"/>, <see cref="MetricRegistryOptions.Strategy"/> is not a defined value, or <see cref="MetricRegistryOptions.PartitionCount"/> is below what this machine needs or above <see cref="MetricRegistryOptions.MaxPartitionCount"/>.</exception>
    public MetricRegistry(MetricRegistryOptions options)
        : this(options, selfMetricNamesAllowed: false)
    {
    }

    /// <summary>Creates a registry that, with <paramref name="selfMetricNamesAllowed"/>, may create
    /// instruments under the names the library keeps for its own metrics (<see cref="SelfMetricNames"/>),
    /// which every other registry refuses: the one the library makes for those metrics.</summary>
    /// <param name="options">Its settings, read once here.</param>
    /// <param name="selfMetricNamesAllowed">Whether its instruments may take the self-metrics' names.</param>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range, as for <see cref="MetricRegistry(MetricRegistryOptions)"/>.</exception>
    internal MetricRegistry(MetricRegistryOptions options, bool selfMetricNamesAllowed)
        : this(options, DefaultMeterName, selfMetricNamesAllowed)
    {
    }

    /// <summary>Creates a registry whose instruments are published under the meter <paramref name="meterName"/>:
    /// the name its views (<see cref="MetricRegistryOptions.Views"/>) match <see cref="MetricView.Meter"/> against.</summary>
    /// <param name="options">Its settings, read once here.</param>
    /// <param name="meterName">Its meter's name: <c>ScalableMetricsOptions.MeterName</c>, or a listened meter's name.</param>
    /// <param name="selfMetricNamesAllowed">Whether its instruments may take the self-metrics' names.</param>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of range, as for <see cref="MetricRegistry(MetricRegistryOptions)"/>.</exception>
    /// <exception cref="ArgumentException">A view breaks a rule of <see cref="MetricView"/>.</exception>
    internal MetricRegistry(MetricRegistryOptions options, string meterName, bool selfMetricNamesAllowed = false)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(meterName);
        MeterName = meterName;
        _names = new NameReservations(selfMetricNamesAllowed);
        if (!Enum.IsDefined(options.Strategy))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.Strategy, $"{nameof(MetricRegistryOptions.Strategy)} is not a defined {nameof(PartitionStrategy)}.");
        }

        if (options.RemoveSeriesIdleForCollections < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.RemoveSeriesIdleForCollections, $"{nameof(MetricRegistryOptions.RemoveSeriesIdleForCollections)} must be at least 1, or null for no idle expiry.");
        }

        if (options.MaxSeriesPerInstrument < 2)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.MaxSeriesPerInstrument, $"{nameof(MetricRegistryOptions.MaxSeriesPerInstrument)} must be at least 2.");
        }

        RequireAtLeast(options.MaxInstruments, 1, nameof(MetricRegistryOptions.MaxInstruments));
        RequireAtLeast(options.MaxTagKeyLength, 1, nameof(MetricRegistryOptions.MaxTagKeyLength));
        RequireAtLeast(options.MaxTagValueLength, 1, nameof(MetricRegistryOptions.MaxTagValueLength));
        RequireAtLeast(options.MaxTagsPerSeries, 1, nameof(MetricRegistryOptions.MaxTagsPerSeries));
        if (options.MaxTagsPerSeries > MetricRegistryOptions.MaxMaxTagsPerSeries)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.MaxTagsPerSeries, $"{nameof(MetricRegistryOptions.MaxTagsPerSeries)} must be at most {MetricRegistryOptions.MaxMaxTagsPerSeries}.");
        }

        if (!Enum.IsDefined(options.ExemplarFilter))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.ExemplarFilter, $"{nameof(MetricRegistryOptions.ExemplarFilter)} is not a defined {nameof(ScalableMetrics.ExemplarFilter)}.");
        }

        if (!Enum.IsDefined(options.SeriesStorage))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.SeriesStorage, $"{nameof(MetricRegistryOptions.SeriesStorage)} is not a defined {nameof(ScalableMetrics.SeriesStorage)}.");
        }

        if (options.MaxPromotedBytes < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.MaxPromotedBytes, $"{nameof(MetricRegistryOptions.MaxPromotedBytes)} must not be negative.");
        }

        _views = ViewSet.Of(options.Views);
        ExemplarFilter = options.ExemplarFilter;
        SeriesStorage = options.SeriesStorage;
        MaxSeriesPerInstrument = options.MaxSeriesPerInstrument;
        RemoveSeriesIdleForCollections = options.RemoveSeriesIdleForCollections;
        MaxInstruments = options.MaxInstruments;
        _tagLimits = new TagLimits(options.MaxTagsPerSeries, options.MaxTagKeyLength, options.MaxTagValueLength);
        (WritePath, WritePathReason) = WritePathChoice.Choose(options.Strategy, options.UseRestartableSequences, ProcessorId.IsSupported, RestartableSequence.UnsupportedReason);
        Strategy = WritePath == WritePath.PerThread ? PartitionStrategy.PerThread : PartitionStrategy.PerProcessor;
        PartitionCount = ChoosePartitionCount(options.PartitionCount, WritePath);
        PartitionReason = DescribePartitions(options.PartitionCount, WritePath, PartitionCount);
        _arena = new PartitionArena(WritePath, WritePath == WritePath.RestartableSequence ? RestartableWritePath.RegionCount(PartitionCount) : PartitionCount, options.SeriesStorage, options.MaxPromotedBytes);
    }

    /// <summary>Where this registry's series keep their data (<see cref="MetricRegistryOptions.SeriesStorage"/>).</summary>
    public SeriesStorage SeriesStorage { get; }

    /// <summary>The series of this registry's instruments promoted from compact to a copy per partition so far (<see cref="SeriesStorage.Adaptive"/>). Thread-safe.</summary>
    public long PromotedSeriesCount => _arena.PromotedSeriesCount;
    /// <summary>The meter name a registry made outside the hosting packages matches views against: <c>ScalableMetrics</c>, the bridge's default.</summary>
    internal const string DefaultMeterName = "ScalableMetrics";

    /// <summary>The name of the meter this registry's instruments are published under, which its views match.</summary>
    internal string MeterName { get; }

    /// <summary>The view that applies to the instrument named <paramref name="name"/>, or null.</summary>
    /// <remarks>Refuses a null name first, named as the creating method's argument is: a wildcard view's match would name its own.</remarks>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    internal CompiledView? ViewOf(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return _views.Find(MeterName, name);
    }

    /// <summary>The strategy this registry's instruments use: the one asked for, or <see cref="PartitionStrategy.PerThread"/> where no processor id can be had.</summary>
    public PartitionStrategy Strategy { get; }

    /// <summary>How this registry's series take an add: chosen from <see cref="MetricRegistryOptions.Strategy"/>, <see cref="MetricRegistryOptions.UseRestartableSequences"/> and what this process supports; <see cref="WritePathReason"/> says why.</summary>
    public WritePath WritePath { get; }

    /// <summary>Why this registry uses its <see cref="WritePath"/>, in a sentence (e.g. the reason restartable sequences are not available here).</summary>
    public string WritePathReason { get; }

    /// <summary>
    /// The partitions each series keeps a slot for: processor ids (plus one overflow region with
    /// <see cref="WritePath.RestartableSequence"/>), or, per thread, the thread indexes its first
    /// regions are made for (more are added as threads take indexes).
    /// </summary>
    /// <remarks><see cref="MetricRegistryOptions.PartitionCount"/> where set; otherwise read from the machine.</remarks>
    public int PartitionCount { get; }

    /// <summary>The adds of the restartable write path that went to an overflow region since the
    /// process started, process-wide (<see cref="OverflowRegionAdds"/>), for the self-metrics: the
    /// exporter reads it here rather than reach into the cells.</summary>
    internal static long OverflowRegionAddCount => OverflowRegionAdds.Count;

    /// <summary>Why this registry has <see cref="PartitionCount"/> partitions, in words: the processors
    /// the process may use, the id that picks a region, and where an add with no region goes (for the
    /// start-up log line).</summary>
    internal string PartitionReason { get; }

    /// <summary>Which measurements this registry's counters and histograms keep as exemplars (<see cref="MetricRegistryOptions.ExemplarFilter"/>).</summary>
    public ExemplarFilter ExemplarFilter { get; }

    /// <summary>The bytes this registry's series slots take: all of its arenas' chunks (native memory, compact and per partition), used or not.</summary>
    internal long SlotBytes => _arena.ReservedBytes + _arena.Compact.ReservedBytes;

    /// <summary>The arena of this registry's series (for tests and the harness).</summary>
    internal PartitionArena Arena => _arena;

    /// <summary>The removed series of this registry's instruments whose arena memory was reclaimed (<c>SeriesTables.RetiredSeries</c>), or, for a gauge's series, which the GC collected (<c>SeriesTables.FinalizedRemovals</c>).</summary>
    internal long RemovedSeriesReclaimed
    {
        get
        {
            long reclaimed = 0;
            foreach (Instrument instrument in CollectedInstruments)
            {
                reclaimed = checked(reclaimed + instrument.Removals.Reclaimed);
            }

            return reclaimed;
        }
    }

    /// <summary>What was added to this registry's removed series after their last export, found at their reclaims: counted, never exported (for a gauge's series, 1 where it was set after it to another value).</summary>
    internal long RemovedSeriesLateAdds
    {
        get
        {
            long lateAdds = 0;
            foreach (Instrument instrument in CollectedInstruments)
            {
                lateAdds = Cells.SaturatingSum.Add(lateAdds, instrument.Removals.LateAdds);
            }

            return lateAdds;
        }
    }

    /// <summary>After how many collections without a change a series is removed (<see cref="MetricRegistryOptions.RemoveSeriesIdleForCollections"/>); null: never.</summary>
    public int? RemoveSeriesIdleForCollections { get; }

    /// <summary>The most series one instrument keeps, the overflow series not counted (<see cref="MetricRegistryOptions.MaxSeriesPerInstrument"/>):
    /// an instrument exports at most one more series than this.</summary>
    public int MaxSeriesPerInstrument { get; }

    /// <summary>Whether <paramref name="instrument"/>, one of this registry's, has its overflow series:
    /// a tag set came past <see cref="MaxSeriesPerInstrument"/> and was recorded there.</summary>
    /// <remarks>The overflow series is created by the first record it takes and stays, though a
    /// removal frees a place under the limit (<see cref="Instrument.HasOverflowSeries"/>).</remarks>
    internal bool HasOverflowSeries(Instrument instrument) => instrument.HasOverflowSeries;

    /// <summary>The most instruments this registry creates (<see cref="MetricRegistryOptions.MaxInstruments"/>).</summary>
    public int MaxInstruments { get; }

    /// <summary>The most tags one series carries (<see cref="MetricRegistryOptions.MaxTagsPerSeries"/>).</summary>
    public int MaxTagsPerSeries => _tagLimits.MaxTags;

    /// <summary>The most characters of a tag key (<see cref="MetricRegistryOptions.MaxTagKeyLength"/>).</summary>
    public int MaxTagKeyLength => _tagLimits.MaxKeyLength;

    /// <summary>The most characters of a string tag value (<see cref="MetricRegistryOptions.MaxTagValueLength"/>).</summary>
    public int MaxTagValueLength => _tagLimits.MaxValueLength;

    /// <summary>The instruments created so far, in the order of their creation, as a collection reads them
    /// (the exporters' sources, the self-metrics): no copy, no lock; never to be changed.</summary>
    internal ReadOnlySpan<Instrument> CollectedInstruments => Volatile.Read(ref _collected);

    /// <summary>A snapshot of the instruments created so far.</summary>
    public IReadOnlyList<Instrument> Instruments
    {
        get
        {
            lock (_lock)
            {
                return [.. _instruments];
            }
        }
    }

    /// <summary>
    /// Makes the registry reserve its instruments' exported names under a UTF-8 name translation
    /// too (<see cref="NameReservations.ReserveTranslation"/>): a Prometheus exporter that writes
    /// that translation calls it before its first scrape, so that an instrument whose names would
    /// meet another's under it, under any escaping a scraper negotiates, is refused at creation. Thread-safe.
    /// </summary>
    /// <param name="withSuffixes">Whether the translation appends the unit and type suffixes.</param>
    /// <param name="parameterName">The exporter's parameter that chose it, named in the exception.</param>
    /// <exception cref="ArgumentException">Two instruments already created would meet under it; the message names both.</exception>
    internal void ReserveTranslatedNames(bool withSuffixes, string parameterName)
    {
        lock (_lock)
        {
            _names.ReserveTranslation(withSuffixes, _instruments, parameterName);
        }
    }

    /// <summary>Creates a partitioned counter, or returns the one already created with this name and unit.</summary>
    /// <param name="name">The instrument name, e.g. <c>webapi.requests</c>; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="unit">The unit, e.g. <c>{request}</c> or <c>By</c>; null for none.</param>
    /// <param name="description">A description; null for none.</param>
    /// <returns>The counter.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> or <paramref name="unit"/> breaks OpenTelemetry's syntax, the name is taken by an instrument of another kind or unit,
    /// or the counter would export under a name an existing instrument exports under (the message names both).</exception>
    /// <exception cref="InvalidOperationException">The registry holds <see cref="MaxInstruments"/> instruments already.</exception>
    /// <exception cref="AggregateException">One or more observers (<see cref="ObserveInstruments"/>) threw: the counter was created
    /// nonetheless, every observer was called, and creating it again returns it.</exception>
    public PartitionedCounter CreateCounter(string name, string? unit = null, string? description = null) =>
        GetOrCreate(name, unit, s => new PartitionedCounter(s.Name, unit, description, _arena, s.MaxSeries, s.TagLimits, s.ExemplarFilter));

    /// <summary>Creates an operation timer (count and elapsed seconds, and with <paramref name="boundaries"/> a count per bucket), or returns the one already created with this name and the same boundaries.</summary>
    /// <param name="name">The instrument name, e.g. <c>webapi.request.duration</c>; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="description">A description; null for none.</param>
    /// <param name="boundaries">Bucket boundaries in seconds, strictly increasing and finite, 1 to 256 of them (copied), making the
    /// operation a latency histogram exported as <c>x_seconds_bucket</c>, <c>_sum</c>, <c>_count</c>; null for none (a summary, count and sum).</param>
    /// <returns>The operation timer; its unit is <see cref="OperationData.ElapsedUnit"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> breaks OpenTelemetry's syntax, is taken by an instrument of another kind,
    /// or the operation would export under a name an existing instrument exports under (the message names both); or <paramref name="boundaries"/> is empty, longer than 256, holds a NaN or infinite boundary or is not strictly increasing (checked even where a view's <see cref="MetricView.HistogramBoundaries"/> replace them), or differs from the boundaries (or their absence) of the operation of this name (parameter <c>boundaries</c>).</exception>
    /// <exception cref="InvalidOperationException">The registry holds <see cref="MaxInstruments"/> instruments already.</exception>
    /// <exception cref="AggregateException">One or more observers (<see cref="ObserveInstruments"/>) threw: the operation was created
    /// nonetheless, every observer was called, and creating it again returns it.</exception>
    public OperationData CreateOperationData(string name, string? description = null, IReadOnlyList<double>? boundaries = null)
    {
        // The caller's boundaries are checked even where a view replaces them: a bad argument is
        // refused whatever the configuration, before any instrument or name is made.
        HistogramBuckets? asked = boundaries is null ? null : HistogramBuckets.Create(boundaries, nameof(boundaries));
        CompiledView? view = ThrowIfExponential(ViewOf(name), nameof(ScalableMetrics.OperationData), name);
        HistogramBuckets? buckets = view?.Buckets ?? asked;
        OperationData operation = GetOrCreate(name, OperationData.ElapsedUnit, s => new OperationData(s.Name, description, buckets, _arena, s.MaxSeries, s.TagLimits));
        if (operation.Buckets is null ? buckets is not null : buckets is null || !operation.Buckets.SameAs(buckets))
        {
            throw BoundariesDiffer(operation, operation.Boundaries, buckets?.Boundaries);
        }

        return operation;
    }

    /// <summary>Creates a partitioned monotonic counter of <see cref="double"/> values, or returns the one already created with this name and unit.</summary>
    /// <param name="name">The instrument name, e.g. <c>webapi.response.size</c>; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="unit">The unit, e.g. <c>By</c>; null for none.</param>
    /// <param name="description">A description; null for none.</param>
    /// <returns>The counter.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> or <paramref name="unit"/> breaks OpenTelemetry's syntax, the name is taken by an instrument of another kind or unit,
    /// or the counter would export under a name an existing instrument exports under (the message names both).</exception>
    /// <exception cref="InvalidOperationException">The registry holds <see cref="MaxInstruments"/> instruments already.</exception>
    /// <exception cref="AggregateException">One or more observers (<see cref="ObserveInstruments"/>) threw: the counter was created
    /// nonetheless, every observer was called, and creating it again returns it.</exception>
    public PartitionedDoubleCounter CreateDoubleCounter(string name, string? unit = null, string? description = null) =>
        GetOrCreate(name, unit, s => new PartitionedDoubleCounter(s.Name, unit, description, _arena, s.MaxSeries, s.TagLimits, s.ExemplarFilter));

    /// <summary>Creates a partitioned up-down counter of <see cref="long"/> values, or returns the one already created with this name and unit.</summary>
    /// <param name="name">The instrument name, e.g. <c>webapi.requests.in_flight</c>; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="unit">The unit, e.g. <c>{request}</c>; null for none.</param>
    /// <param name="description">A description; null for none.</param>
    /// <returns>The up-down counter.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> or <paramref name="unit"/> breaks OpenTelemetry's syntax, the name is taken by an instrument of another kind or unit,
    /// or the up-down counter would export under a name an existing instrument exports under (the message names both).</exception>
    /// <exception cref="InvalidOperationException">The registry holds <see cref="MaxInstruments"/> instruments already.</exception>
    /// <exception cref="AggregateException">One or more observers (<see cref="ObserveInstruments"/>) threw: the up-down counter was created
    /// nonetheless, every observer was called, and creating it again returns it.</exception>
    public PartitionedUpDownCounter CreateUpDownCounter(string name, string? unit = null, string? description = null) =>
        GetOrCreate(name, unit, s => new PartitionedUpDownCounter(s.Name, unit, description, _arena, s.MaxSeries, s.TagLimits));

    /// <summary>Creates a partitioned up-down counter of <see cref="double"/> values, or returns the one already created with this name and unit.</summary>
    /// <param name="name">The instrument name, e.g. <c>queue.work.pending</c>; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="unit">The unit, e.g. <c>s</c>; null for none.</param>
    /// <param name="description">A description; null for none.</param>
    /// <returns>The up-down counter.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> or <paramref name="unit"/> breaks OpenTelemetry's syntax, the name is taken by an instrument of another kind or unit,
    /// or the up-down counter would export under a name an existing instrument exports under (the message names both).</exception>
    /// <exception cref="InvalidOperationException">The registry holds <see cref="MaxInstruments"/> instruments already.</exception>
    /// <exception cref="AggregateException">One or more observers (<see cref="ObserveInstruments"/>) threw: the up-down counter was created
    /// nonetheless, every observer was called, and creating it again returns it.</exception>
    public PartitionedDoubleUpDownCounter CreateDoubleUpDownCounter(string name, string? unit = null, string? description = null) =>
        GetOrCreate(name, unit, s => new PartitionedDoubleUpDownCounter(s.Name, unit, description, _arena, s.MaxSeries, s.TagLimits));

    /// <summary>Creates a partitioned histogram with explicit bucket boundaries, or returns the one already created with this name, unit and boundaries.</summary>
    /// <param name="name">The instrument name, e.g. <c>webapi.request.duration</c>; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="unit">The unit, e.g. <c>s</c> or <c>By</c>; null for none.</param>
    /// <param name="description">A description; null for none.</param>
    /// <param name="boundaries">The bucket boundaries, strictly increasing and finite, 1 to 256 of them (copied); null for
    /// <see cref="PartitionedHistogram.DefaultBoundaries"/>.</param>
    /// <returns>The histogram.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> or <paramref name="unit"/> breaks OpenTelemetry's syntax, the name is taken by an instrument of another kind or unit,
    /// or the histogram would export under a name an existing instrument exports under (the message names both); or <paramref name="boundaries"/> is empty, longer than 256, holds a NaN or infinite boundary or is not strictly increasing (checked even where a view's <see cref="MetricView.HistogramBoundaries"/> replace them), or differs from the boundaries of the histogram of this name (parameter <c>boundaries</c>).</exception>
    /// <exception cref="InvalidOperationException">The registry holds <see cref="MaxInstruments"/> instruments already.</exception>
    /// <exception cref="AggregateException">One or more observers (<see cref="ObserveInstruments"/>) threw: the histogram was created
    /// nonetheless, every observer was called, and creating it again returns it.</exception>
    public PartitionedHistogram CreateHistogram(string name, string? unit = null, string? description = null, IReadOnlyList<double>? boundaries = null)
    {
        // The caller's boundaries are checked even where a view replaces them (as CreateOperationData's).
        HistogramBuckets? asked = boundaries is null ? null : HistogramBuckets.Create(boundaries, nameof(boundaries));
        CompiledView? view = ThrowIfExponential(ViewOf(name), nameof(PartitionedHistogram), name);
        HistogramBuckets buckets = view?.Buckets ?? asked ?? HistogramBuckets.Create(PartitionedHistogram.DefaultBoundaries, nameof(boundaries));
        PartitionedHistogram histogram = GetOrCreate(name, unit, s => new PartitionedHistogram(s.Name, unit, description, buckets, _arena, s.MaxSeries, s.TagLimits, s.ExemplarFilter));
        if (!histogram.Buckets.SameAs(buckets))
        {
            throw BoundariesDiffer(histogram, histogram.Boundaries, buckets.Boundaries);
        }

        return histogram;
    }

    /// <summary>Creates an exponential-bucket (native) histogram, or returns the one already created with this name, unit and layout.</summary>
    /// <param name="name">The instrument name, e.g. <c>webapi.request.duration</c>; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="unit">The unit, e.g. <c>s</c> or <c>By</c>; null for none.</param>
    /// <param name="description">A description; null for none.</param>
    /// <param name="scale">The scale it records at, from -4 to 8 (Prometheus' native histogram schemas; OpenTelemetry allows -10 to 20): base 2^(2^-scale), relative error base − 1 (scale 3: about 9 %). Fixed for the instrument; readings may downscale.</param>
    /// <param name="minValue">The smallest value told apart from zero: values at or below its bucket's lower boundary count in the zero bucket. Positive, finite, normal.</param>
    /// <param name="maxValue">The largest value kept in its own bucket: larger values count in its bucket. Finite, above <paramref name="minValue"/>.</param>
    /// <param name="maxBuckets">The most buckets a reading spans (at least 2): readings downscale until their non-empty buckets fit.</param>
    /// <param name="classicBoundaries">Classic bucket boundaries counted beside the exponential buckets, exactly (one more add
    /// per record), so that the Prometheus protobuf exposition carries both kinds in one message, as client_golang's histograms
    /// do, and the text formats write these <c>le</c> buckets; null (the default) for none. Finite, strictly increasing, 1 to 256.</param>
    /// <returns>The histogram.</returns>
    /// <remarks>Each series takes one slot per bucket from <paramref name="minValue"/> to <paramref name="maxValue"/>, plus two, plus one per classic
    /// bucket (boundaries + 1), in every partition: 243 slots (1,944 bytes) per partition with the defaults; at most <c>512</c> buckets. See <see cref="PartitionedExponentialHistogram"/> for why the scale is fixed.
    /// A matching view's <see cref="MetricView.ExponentialHistogramScale"/> and <see cref="MetricView.ExponentialHistogramMaxBuckets"/> replace <paramref name="scale"/> and <paramref name="maxBuckets"/>,
    /// which are checked nonetheless: an argument out of its range is refused with or without the view.</remarks>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The scale, a value bound or <paramref name="maxBuckets"/> is out of range, or the range takes more than 512 buckets at that scale
    /// (where a view set the scale, the message names the view).</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> or <paramref name="unit"/> breaks OpenTelemetry's syntax, the name is taken by an instrument of another kind or unit,
    /// the histogram exists with another layout (classic boundaries included; the parameter named is the first, in this method's order, whose layout differs), it would export under a name an existing instrument exports under (the message names both),
    /// or <paramref name="classicBoundaries"/> is empty, longer than 256, not finite or not strictly increasing.</exception>
    /// <exception cref="InvalidOperationException">The registry holds <see cref="MaxInstruments"/> instruments already.</exception>
    /// <exception cref="AggregateException">One or more observers (<see cref="ObserveInstruments"/>) threw: the histogram was created
    /// nonetheless, every observer was called, and creating it again returns it.</exception>
    public PartitionedExponentialHistogram CreateExponentialHistogram(
        string name,
        string? unit = null,
        string? description = null,
        int scale = PartitionedExponentialHistogram.DefaultScale,
        double minValue = PartitionedExponentialHistogram.DefaultMinValue,
        double maxValue = PartitionedExponentialHistogram.DefaultMaxValue,
        int maxBuckets = PartitionedExponentialHistogram.DefaultMaxBuckets,
        IReadOnlyList<double>? classicBoundaries = null)
    {
        // The caller's scale and most buckets are checked even where a view replaces them: a bad
        // argument is refused whatever the configuration, before any instrument or name is made.
        ExponentialBuckets.CheckOptions(scale, minValue, maxValue, maxBuckets);
        CompiledView? view = ViewOf(name);
        if (view is not null)
        {
            if (view.Buckets is not null)
            {
                throw new ArgumentException(
                    $"The {view.Description} sets bucket boundaries for the {nameof(PartitionedExponentialHistogram)} {ExceptionText.Quote(name)}; a registry histogram keeps the kind it is created with. Set the view's exponential settings, or create a {nameof(PartitionedHistogram)}.",
                    nameof(name));
            }

            maxBuckets = view.MaxBuckets ?? maxBuckets;
        }

        // A view's scale replaces the caller's, whatever the range asked for: where that range does
        // not fit at it, the error names the view, which set the scale, not only maxValue.
        ExponentialBuckets buckets = view?.Scale is { } viewScale
            ? ExponentialBuckets.Create(viewScale, minValue, maxValue, maxBuckets, classicBoundaries, $"the {view.Description}'s {nameof(MetricView.ExponentialHistogramScale)}")
            : ExponentialBuckets.Create(scale, minValue, maxValue, maxBuckets, classicBoundaries);
        PartitionedExponentialHistogram histogram = GetOrCreate(name, unit, s => new PartitionedExponentialHistogram(s.Name, unit, description, buckets, _arena, s.MaxSeries, s.TagLimits, s.ExemplarFilter));
        // Named by the first argument (in the parameters' order) whose layout differs, as
        // CreateHistogram names boundaries: the argument the caller got wrong.
        if (histogram.Buckets.FirstDifference(buckets) is string differs)
        {
            throw new ArgumentException(
                $"The {nameof(PartitionedExponentialHistogram)} {ExceptionText.Quote(histogram.Name)} exists with {histogram.Buckets}, not {buckets}; an instrument's layout is fixed when it is created.",
                differs);
        }

        return histogram;
    }

    /// <summary>Creates a gauge of <see cref="long"/> values (the last value set per series), or returns the one already created with this name and unit.</summary>
    /// <param name="name">The instrument name, e.g. <c>webapi.queue.length</c>; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="unit">The unit, e.g. <c>{item}</c> or <c>By</c>; null for none.</param>
    /// <param name="description">A description; null for none.</param>
    /// <returns>The gauge.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> or <paramref name="unit"/> breaks OpenTelemetry's syntax, the name is taken by an instrument of another kind or unit,
    /// or the gauge would export under a name an existing instrument exports under (the message names both).</exception>
    /// <exception cref="InvalidOperationException">The registry holds <see cref="MaxInstruments"/> instruments already.</exception>
    /// <exception cref="AggregateException">One or more observers (<see cref="ObserveInstruments"/>) threw: the gauge was created
    /// nonetheless, every observer was called, and creating it again returns it.</exception>
    public Gauge CreateGauge(string name, string? unit = null, string? description = null) =>
        GetOrCreate(name, unit, s => new Gauge(s.Name, unit, description, s.MaxSeries, s.TagLimits));

    /// <summary>Creates a gauge of <see cref="double"/> values (the last value set per series), or returns the one already created with this name and unit.</summary>
    /// <param name="name">The instrument name, e.g. <c>webapi.cache.hit_ratio</c>; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="unit">The unit, e.g. <c>1</c> or <c>s</c>; null for none.</param>
    /// <param name="description">A description; null for none.</param>
    /// <returns>The gauge.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> or <paramref name="unit"/> breaks OpenTelemetry's syntax, the name is taken by an instrument of another kind or unit,
    /// or the gauge would export under a name an existing instrument exports under (the message names both).</exception>
    /// <exception cref="InvalidOperationException">The registry holds <see cref="MaxInstruments"/> instruments already.</exception>
    /// <exception cref="AggregateException">One or more observers (<see cref="ObserveInstruments"/>) threw: the gauge was created
    /// nonetheless, every observer was called, and creating it again returns it.</exception>
    public DoubleGauge CreateDoubleGauge(string name, string? unit = null, string? description = null) =>
        GetOrCreate(name, unit, s => new DoubleGauge(s.Name, unit, description, s.MaxSeries, s.TagLimits));

    /// <summary>Creates an observable counter whose callback reports cumulative <see cref="long"/> totals at every collection.</summary>
    /// <param name="name">The instrument name; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="observe">Called at every collection, never twice at once: the current total of each series (see <see cref="ObservableInstrument"/>).</param>
    /// <param name="unit">The unit; null for none.</param>
    /// <param name="description">A description; null for none.</param>
    /// <returns>The counter.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> or <paramref name="observe"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> or <paramref name="unit"/> breaks OpenTelemetry's syntax, the name is taken (an observable
    /// instrument is created once: its callback is not replaced), or the counter would export under a name an existing instrument exports under.</exception>
    /// <exception cref="InvalidOperationException">The registry holds <see cref="MaxInstruments"/> instruments already.</exception>
    /// <exception cref="AggregateException">One or more observers (<see cref="ObserveInstruments"/>) threw: the counter was created nonetheless.</exception>
    public ObservableCounter CreateObservableCounter(string name, Func<IEnumerable<Measurement<long>>> observe, string? unit = null, string? description = null) =>
        CreateObservable(name, unit, observe, (streamName, values) => new ObservableCounter(streamName, unit, description, values));

    /// <summary>Creates an observable counter whose callback reports cumulative <see cref="double"/> totals at every collection.</summary>
    /// <inheritdoc cref="CreateObservableCounter(string, Func{IEnumerable{Measurement{long}}}, string?, string?)"/>
    public ObservableCounter CreateObservableCounter(string name, Func<IEnumerable<Measurement<double>>> observe, string? unit = null, string? description = null) =>
        CreateObservable(name, unit, observe, (streamName, values) => new ObservableCounter(streamName, unit, description, values));

    /// <summary>Creates an observable up-down counter whose callback reports <see cref="long"/> totals, of either sign, at every collection.</summary>
    /// <param name="name">The instrument name; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="observe">Called at every collection, never twice at once: the current total of each series (see <see cref="ObservableInstrument"/>).</param>
    /// <param name="unit">The unit; null for none.</param>
    /// <param name="description">A description; null for none.</param>
    /// <returns>The up-down counter.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> or <paramref name="observe"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> or <paramref name="unit"/> breaks OpenTelemetry's syntax, the name is taken (an observable
    /// instrument is created once: its callback is not replaced), or the instrument would export under a name an existing instrument exports under.</exception>
    /// <exception cref="InvalidOperationException">The registry holds <see cref="MaxInstruments"/> instruments already.</exception>
    /// <exception cref="AggregateException">One or more observers (<see cref="ObserveInstruments"/>) threw: the instrument was created nonetheless.</exception>
    public ObservableUpDownCounter CreateObservableUpDownCounter(string name, Func<IEnumerable<Measurement<long>>> observe, string? unit = null, string? description = null) =>
        CreateObservable(name, unit, observe, (streamName, values) => new ObservableUpDownCounter(streamName, unit, description, values));

    /// <summary>Creates an observable up-down counter whose callback reports <see cref="double"/> totals, of either sign, at every collection.</summary>
    /// <inheritdoc cref="CreateObservableUpDownCounter(string, Func{IEnumerable{Measurement{long}}}, string?, string?)"/>
    public ObservableUpDownCounter CreateObservableUpDownCounter(string name, Func<IEnumerable<Measurement<double>>> observe, string? unit = null, string? description = null) =>
        CreateObservable(name, unit, observe, (streamName, values) => new ObservableUpDownCounter(streamName, unit, description, values));

    /// <summary>Creates an observable gauge whose callback reports <see cref="long"/> values at every collection.</summary>
    /// <param name="name">The instrument name; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="observe">Called at every collection, never twice at once: the current value of each series (see <see cref="ObservableInstrument"/>).</param>
    /// <param name="unit">The unit; null for none.</param>
    /// <param name="description">A description; null for none.</param>
    /// <returns>The gauge.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> or <paramref name="observe"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> or <paramref name="unit"/> breaks OpenTelemetry's syntax, the name is taken (an observable
    /// instrument is created once: its callback is not replaced), or the gauge would export under a name an existing instrument exports under.</exception>
    /// <exception cref="InvalidOperationException">The registry holds <see cref="MaxInstruments"/> instruments already.</exception>
    /// <exception cref="AggregateException">One or more observers (<see cref="ObserveInstruments"/>) threw: the gauge was created nonetheless.</exception>
    public ObservableGauge CreateObservableGauge(string name, Func<IEnumerable<Measurement<long>>> observe, string? unit = null, string? description = null) =>
        CreateObservable(name, unit, observe, (streamName, values) => new ObservableGauge(streamName, unit, description, values));

    /// <summary>Creates an observable gauge whose callback reports <see cref="double"/> values at every collection.</summary>
    /// <inheritdoc cref="CreateObservableGauge(string, Func{IEnumerable{Measurement{long}}}, string?, string?)"/>
    public ObservableGauge CreateObservableGauge(string name, Func<IEnumerable<Measurement<double>>> observe, string? unit = null, string? description = null) =>
        CreateObservable(name, unit, observe, (streamName, values) => new ObservableGauge(streamName, unit, description, values));

    /// <summary>
    /// Creates an observable gauge whose callback reports into the <see cref="Observations{TValue}"/> it is
    /// handed rather than returning measurements: the library's own instruments (the self-metrics),
    /// which allocate nothing per measurement. Otherwise as the public overloads.
    /// </summary>
    internal ObservableGauge CreateObservableGauge<TValue>(string name, Action<Observations<TValue>> report, string? unit = null, string? description = null)
        where TValue : struct, INumberBase<TValue> =>
        CreateObservable(name, unit, report, (streamName, values) => new ObservableGauge(streamName, unit, description, values));

    /// <summary>As <see cref="CreateObservableGauge{TValue}(string, Action{Observations{TValue}}, string?, string?)"/>, a counter.</summary>
    internal ObservableCounter CreateObservableCounter<TValue>(string name, Action<Observations<TValue>> report, string? unit = null, string? description = null)
        where TValue : struct, INumberBase<TValue> =>
        CreateObservable(name, unit, report, (streamName, values) => new ObservableCounter(streamName, unit, description, values));

    // An observable instrument, made by create under its stream's name over the callback's values;
    // created once: a second creation under the name throws rather than replace the callback.
    private T CreateObservable<T>(string name, string? unit, Delegate observe, Func<string, ObservedValues, T> create)
        where T : ObservableInstrument
    {
        ArgumentNullException.ThrowIfNull(observe);
        return GetOrCreate(name, unit, s => create(s.Name, ObservedOf(observe, s)), returnsExisting: false);
    }

    // The values of a callback of one of the shapes observable instruments take (measurements
    // returned, or reported into Observations), of longs or doubles, the two value types they keep.
    private static ObservedValues ObservedOf(Delegate observe, InstrumentStream stream) => observe switch
    {
        Func<IEnumerable<Measurement<long>>> longs => ObservedValues.Of(longs, stream.MaxSeries, stream.TagLimits),
        Func<IEnumerable<Measurement<double>>> doubles => ObservedValues.Of(doubles, stream.MaxSeries, stream.TagLimits),
        Action<Observations<long>> longs => ObservedValues.Of(longs, stream.MaxSeries, stream.TagLimits),
        Action<Observations<double>> doubles => ObservedValues.Of(doubles, stream.MaxSeries, stream.TagLimits),
        _ => throw new ArgumentException($"An observable instrument reports long or double values; {observe.GetType()} reports neither.", nameof(observe)),
    };

    /// <summary>
    /// Calls <paramref name="onInstrument"/> for every instrument created so far and, until the
    /// returned handle is disposed, for every one created later; each exactly once.
    /// </summary>
    /// <param name="onInstrument">Called under the registry's lock: it must not create instruments.
    /// If it throws for an instrument created later, the instrument exists all the same, every
    /// other observer still hears of it, and the creation throws an <see cref="AggregateException"/>.</param>
    /// <returns>A handle that stops the calls when disposed.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="onInstrument"/> is null.</exception>
    /// <remarks>If <paramref name="onInstrument"/> throws for an instrument created so far, the
    /// exception goes to the caller and the observer is not subscribed.</remarks>
    public IDisposable ObserveInstruments(Action<Instrument> onInstrument)
    {
        ArgumentNullException.ThrowIfNull(onInstrument);
        lock (_lock)
        {
            foreach (Instrument instrument in _instruments)
            {
                onInstrument(instrument);
            }

            // Subscribed only once it has heard of every instrument: a replay that threw leaves nothing behind.
            _observers.Add(onInstrument);
        }

        return new Subscription(this, onInstrument);
    }

    private static void RequireAtLeast(int value, int minimum, string option)
    {
        if (value < minimum)
        {
            throw new ArgumentOutOfRangeException("options", value, $"{option} must be at least {minimum}.");
        }
    }

    // The new instrument is created before its exported names are checked, so that its family is
    // the one its kind names (ExportedFamily.For), not a second choice made here; one refused is
    // dropped unseen. The view that matches the name asked for is applied here, once.
    private T GetOrCreate<T>(string name, string? unit, Func<InstrumentStream, T> create, bool returnsExisting = true)
        where T : Instrument
    {
        InstrumentNames.Validate(name, unit);
        CompiledView? view = ViewOf(name);
        if (view is { Drop: true })
        {
            return GetOrCreateDropped(name, unit, create, returnsExisting);
        }

        string streamName = view?.Name ?? name;
        var stream = new InstrumentStream(streamName, view?.CardinalityLimit ?? MaxSeriesPerInstrument, _tagLimits.With(view?.TagKeys), view?.ExemplarFilter ?? ExemplarFilter);
        List<Exception>? observerFailures = null;
        T created;
        lock (_lock)
        {
            if (_names.HolderOf(streamName) is { } existing)
            {
                bool sameAsked = string.Equals(existing.AskedName, name, StringComparison.OrdinalIgnoreCase);
                if (!sameAsked && (view?.Name is not null || !string.Equals(existing.AskedName, existing.Name, StringComparison.OrdinalIgnoreCase)))
                {
                    throw RenamedOntoTaken(typeof(T).Name, name, streamName, view, existing);
                }

                if (returnsExisting && sameAsked && existing is T same && string.Equals(same.Name, streamName, StringComparison.OrdinalIgnoreCase) && string.Equals(same.Unit, unit, StringComparison.Ordinal))
                {
                    return same;
                }

                throw NameReservations.NameTaken(streamName, existing);
            }

            created = create(stream);
            created.AskedName = name;
            created.MaxSeries = stream.MaxSeries;
            created.IdleCollections = RemoveSeriesIdleForCollections ?? 0;
            ExportedFamily family = ExportedFamily.For(created);
            _names.ThrowIfTaken(view?.Name is null ? typeof(T).Name : $"{typeof(T).Name} {ExceptionText.Quote(name)}, renamed by the {view.Description} to", streamName, unit, family);

            if (_instruments.Count >= MaxInstruments)
            {
                throw new InvalidOperationException(
                    $"The registry holds {_instruments.Count} instruments, its limit ({nameof(MetricRegistryOptions)}.{nameof(MetricRegistryOptions.MaxInstruments)}); the {typeof(T).Name} {ExceptionText.Quote(name)} was not created. Raise the limit, or reuse instruments and tell series apart by tags.");
            }

            _names.Reserve(created, family);

            _instruments.Add(created);
            Volatile.Write(ref _collected, [.. _instruments]);
            foreach (Action<Instrument> observer in _observers)
            {
                // One observer's failure must not hide the instrument from the others.
                try
                {
                    observer(created);
                }
                catch (Exception e)
                {
                    (observerFailures ??= []).Add(e);
                }
            }
        }

        if (observerFailures is not null)
        {
            throw new AggregateException(
                $"The {typeof(T).Name} {ExceptionText.Quote(name)} was created, but {observerFailures.Count} of its observers threw; every observer was called, and creating it again returns it.",
                observerFailures);
        }

        return created;
    }

    // An instrument a view drops: made to record into, with one series whatever the tags (every
    // key dropped), and neither kept among the instruments, named, nor shown to observers.
    private T GetOrCreateDropped<T>(string name, string? unit, Func<InstrumentStream, T> create, bool returnsExisting)
        where T : Instrument
    {
        lock (_lock)
        {
            if (returnsExisting && _dropped.TryGetValue(name, out Instrument? existing) && existing is T same && string.Equals(same.Unit, unit, StringComparison.Ordinal))
            {
                return same;
            }

            T created = create(new InstrumentStream(name, 2, _tagLimits.With(TagKeyFilter.KeepOnly([])), ExemplarFilter.None));
            created.AskedName = name;
            created.MaxSeries = 2;
            _dropped[name] = created;
            return created;
        }
    }

    private static ArgumentException RenamedOntoTaken(string kind, string name, string streamName, CompiledView? view, Instrument existing)
    {
        string asked = view?.Name is null ? $"The {kind} {ExceptionText.Quote(name)}" : $"The {view.Description} renames the {kind} {ExceptionText.Quote(name)} to {ExceptionText.Quote(streamName)}, but the name";
        string holder = string.Equals(existing.AskedName, existing.Name, StringComparison.OrdinalIgnoreCase)
            ? $"the {existing.GetType().Name} {ExceptionText.Quote(existing.Name)} (unit {ExceptionText.Quote(existing.Unit)})"
            : $"the {existing.GetType().Name} {ExceptionText.Quote(existing.AskedName)} (unit {ExceptionText.Quote(existing.Unit)}), which a view renamed to {ExceptionText.Quote(existing.Name)}";
        string verb = view?.Name is null ? $"would take the name {ExceptionText.Quote(streamName)}, which" : "is";
        return new ArgumentException(
            $"{asked} {verb} taken by {holder}; two instruments cannot be one stream. Change one of the views.",
            nameof(name));
    }

    // A registry histogram or operation keeps the kind it is created with. Only ExponentialHistogram
    // asks for another kind: a view's scale or most buckets alone are for the exponential histograms
    // it matches, and an explicit one (this, or a listened one the registry creates) ignores them.
    private static CompiledView? ThrowIfExponential(CompiledView? view, string kind, string name)
    {
        if (view is { Exponential: true })
        {
            throw new ArgumentException(
                $"The {view.Description} makes the {kind} {ExceptionText.Quote(name)} an exponential histogram; a registry instrument keeps the kind it is created with. Create it with {nameof(CreateExponentialHistogram)}, or leave the view's {nameof(MetricView.ExponentialHistogram)} false.",
                nameof(name));
        }

        return view;
    }

    private static string DescribePartitions(int? asked, WritePath writePath, int count)
    {
        string reason = writePath switch
        {
            WritePath.RestartableSequence => RestartableSequence.Plan!.Reason
                + (RestartableSequence.WrappingAddUnavailableReason is { } wrapping ? $" Up-down counters' adds all go to the overflow region: {wrapping}." : "")
                + (RestartableSequence.DoubleAddUnavailableReason is { } @double ? $" Floating-point adds all go to the overflow region: {@double}." : ""),
            WritePath.InterlockedProcessorId => $"{ProcessorId.PartitionCount} partitions for {ProcessorSet.Current.Describe()}, each processor its own in socket and core order; a processor first seen later shares one of its own core or socket.",
            _ => $"Regions for {count} thread indexes to start, more as threads take indexes.",
        };
        return asked is null || writePath == WritePath.PerThread
            ? reason
            : $"{reason} {nameof(MetricRegistryOptions)}.{nameof(MetricRegistryOptions.PartitionCount)} asks for {count}: the partitions past those stay unwritten.";
    }

    // What the machine needs: a region for every processor id a write path can pick.
    private static int ChoosePartitionCount(int? asked, WritePath writePath)
    {
        int needed = writePath switch
        {
            WritePath.RestartableSequence => RestartableSequence.PartitionCount,
            WritePath.InterlockedProcessorId => ProcessorId.PartitionCount,
            _ => 1,
        };
        if (asked is not { } count)
        {
            return writePath == WritePath.PerThread ? Math.Max(ThreadLease.IndexCount, Environment.ProcessorCount) : needed;
        }

        if (count < needed || count > MetricRegistryOptions.MaxPartitionCount)
        {
            throw new ArgumentOutOfRangeException(
                "options",
                count,
                $"{nameof(MetricRegistryOptions.PartitionCount)} must be from {needed} (what write path {writePath} needs on this machine) to {MetricRegistryOptions.MaxPartitionCount}.");
        }

        return count;
    }

    private static ArgumentException BoundariesDiffer(Instrument existing, IReadOnlyList<double>? existingBoundaries, IReadOnlyList<double>? asked) => new(
        $"The {existing.GetType().Name} {ExceptionText.Quote(existing.Name)} exists with bucket boundaries {DescribeBoundaries(existingBoundaries)}, not {DescribeBoundaries(asked)}; an instrument's boundaries are fixed when it is created.",
        "boundaries");

    private static string DescribeBoundaries(IReadOnlyList<double>? boundaries) =>
        boundaries is null ? "(none)" : ExceptionText.Quote("[" + string.Join(", ", boundaries.Select(b => b.ToString("R", System.Globalization.CultureInfo.InvariantCulture))) + "]");

    private sealed class Subscription(MetricRegistry registry, Action<Instrument> observer) : IDisposable
    {
        public void Dispose()
        {
            lock (registry._lock)
            {
                registry._observers.Remove(observer);
            }
        }
    }
}
