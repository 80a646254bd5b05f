using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics;

/// <summary>
/// Settings of a <see cref="MetricRegistry"/>, read once when it is created.
/// </summary>
public class MetricRegistryOptions
{
    /// <summary>The default of <see cref="MaxSeriesPerInstrument"/>: 2000, OpenTelemetry .NET's default cardinality limit.</summary>
    public const int DefaultMaxSeriesPerInstrument = 2000;

    /// <summary>The default of <see cref="MaxInstruments"/>: 1000, OpenTelemetry .NET's default metric stream limit.</summary>
    public const int DefaultMaxInstruments = 1000;

    /// <summary>The default of <see cref="MaxTagsPerSeries"/>: 64.</summary>
    public const int DefaultMaxTagsPerSeries = 64;

    /// <summary>The largest <see cref="MaxTagsPerSeries"/> a registry accepts: 128, OpenTelemetry's default attribute count limit.</summary>
    public const int MaxMaxTagsPerSeries = 128;

    /// <summary>The default of <see cref="MaxTagKeyLength"/>: 255 characters, as OpenTelemetry's instrument name limit.</summary>
    public const int DefaultMaxTagKeyLength = 255;

    /// <summary>The default of <see cref="MaxTagValueLength"/>: 1024 characters.</summary>
    public const int DefaultMaxTagValueLength = 1024;

    /// <summary>How each series' data is partitioned.</summary>
    /// <remarks>Default: <see cref="PartitionStrategy.PerProcessor"/>, which becomes
    /// <see cref="PartitionStrategy.PerThread"/> where <see cref="ProcessorId.IsSupported"/> is <see langword="false"/>.</remarks>
    public PartitionStrategy Strategy { get; set; } = PartitionStrategy.PerProcessor;

    /// <summary>Whether per-processor series add through Linux restartable sequences where the
    /// process supports them (<see cref="RestartableSequence.IsSupported"/>): a plain add to the
    /// processor's cell, no atomic instruction. When false, or where they are not supported, they
    /// add with <see cref="Interlocked"/> to the cell of the thread's cached processor id.</summary>
    /// <remarks>Default: <see langword="true"/>. Has no effect on <see cref="PartitionStrategy.PerThread"/>.</remarks>
    public bool UseRestartableSequences { get; set; } = true;

    /// <summary>Where each series keeps its data: compact until contended (the default), a copy per
    /// partition from creation, or compact always. See <see cref="ScalableMetrics.SeriesStorage"/>.</summary>
    /// <remarks>Default: <see cref="SeriesStorage.Adaptive"/>. A value that is not a defined
    /// <see cref="ScalableMetrics.SeriesStorage"/> makes creating the registry throw <see cref="ArgumentOutOfRangeException"/>.</remarks>
    public SeriesStorage SeriesStorage { get; set; } = SeriesStorage.Adaptive;

    /// <summary>The default of <see cref="MaxPromotedBytes"/>: 64 MiB.</summary>
    public const long DefaultMaxPromotedBytes = 64L << 20;

    /// <summary>
    /// With <see cref="SeriesStorage.Adaptive"/>, the most bytes of per-partition copies that
    /// contended series may be promoted to: a promotion whose copies would take the total past it
    /// is refused, and the series stays compact: exact, with the contention of one shared word.
    /// Counted as what the copies hold: a promoted series' slots × 8 bytes × the regions of its
    /// chunk (per thread, of every generation of it, see remarks). A promoted series keeps its
    /// copies until it is removed and its memory reclaimed, which gives back what it was charged.
    /// </summary>
    /// <remarks>
    /// <para>Default: <see cref="DefaultMaxPromotedBytes"/>, a bound on the one part of the registry's
    /// memory that grows with the machine's partitions rather than with its series; at 192
    /// partitions it holds a few thousand contended 16-bucket histogram series. Zero promotes
    /// nothing. Negative makes creating the registry throw <see cref="ArgumentOutOfRangeException"/>.</para>
    /// <para>Per thread (<see cref="PartitionStrategy.PerThread"/>) the copies widen with new thread
    /// indexes: a thread whose index has no region in a promoted series' chunk gives every promoted
    /// series of the chunk copies in more regions, and those are charged when they widen. A writer
    /// must get a slot, so a widening is never refused: it can take the total past this budget,
    /// after which every promotion is refused until reclaimed series bring the total back under it.</para>
    /// </remarks>
    public long MaxPromotedBytes { get; set; } = DefaultMaxPromotedBytes;

    /// <summary>Which measurements counters (<see cref="PartitionedCounter"/>, <see cref="PartitionedDoubleCounter"/>),
    /// histograms (<see cref="PartitionedHistogram"/>) and exponential histograms
    /// (<see cref="PartitionedExponentialHistogram"/>) keep as an <see cref="Exemplar"/>: per
    /// series and partition, the last sampled measurement (per histogram bucket: the last in that
    /// bucket; an exponential histogram: min(20, max buckets) chosen by reservoir sampling, as
    /// OpenTelemetry's <c>SimpleFixedSizeExemplarReservoir</c>), with its time and the current
    /// <see cref="System.Diagnostics.Activity"/>'s trace and span; a collection reads the newest over
    /// partitions (<see cref="CounterReading.Exemplar"/>, <see cref="DoubleReading.Exemplar"/>,
    /// <see cref="HistogramReading.Exemplars"/>, <see cref="ExponentialHistogramReading.Exemplars"/>).</summary>
    /// <remarks>
    /// <para>Default: <see cref="ExemplarFilter.None"/>: nothing is kept or allocated, and an add or
    /// record runs the same instructions as without exemplars. With <see cref="ExemplarFilter.AlwaysOn"/>, every
    /// measurement is kept, traced or not (<see cref="ExemplarFilter"/>). With <see cref="ExemplarFilter.TraceBased"/>,
    /// every add or record leaves the inlined write path for one out of line, and a sampled
    /// measurement also reads the clock and writes a slot behind a sequence lock (never a lock, never
    /// an allocation once its partition's slots exist); an unsampled one reads <see cref="System.Diagnostics.Activity.Current"/>.</para>
    /// <para>Memory goes only where sampled measurements happen: a series' table of partitions on its
    /// first, a partition's slots (about 40 bytes per counter or per histogram bucket, 20 × 40 bytes per
    /// exponential histogram) on its first in that partition; an exponential histogram's series also
    /// counts its sampled measurements, in 128 bytes per partition. Exemplars are exported where the
    /// format carries them (OpenMetrics, protobuf, OTLP); an exponential histogram's only in protobuf
    /// (<c>Histogram.exemplars</c>) and OTLP.</para>
    /// </remarks>
    public ExemplarFilter ExemplarFilter { get; set; } = ExemplarFilter.None;

    /// <summary>The views that change how the instruments they match are stored and exported: renamed,
    /// dropped, some tag keys kept or dropped, bucketed otherwise, with a series limit or an exemplar
    /// filter of their own (see <see cref="MetricView"/>). They apply to the registry's own instruments
    /// and to every listened meter's (<c>AddMeter</c>), when each instrument is created.</summary>
    /// <remarks>Default: none. Bound from configuration as a list (<c>ScalableMetrics:Registry:Views:0:Instrument</c>).
    /// A view that breaks a rule makes creating the registry throw <see cref="ArgumentException"/> naming it.
    /// The first view that matches an instrument applies. See docs/views.md.</remarks>
    public IList<MetricView> Views { get; } = new List<MetricView>();

    /// <summary>
    /// Idle expiry: a series whose value no collection has seen change for this many collections
    /// in a row is removed, as <c>Remove</c> removes it (its next collection exports it a last time,
    /// then it is gone and its memory is reclaimed); a bound series never is. <see langword="null"/>: off.
    /// </summary>
    /// <remarks>
    /// <para>Default: <see langword="null"/>, off: a series lives as long as the registry, as in
    /// earlier releases. Below 1 makes creating the registry throw <see cref="ArgumentOutOfRangeException"/>.</para>
    /// <para>A collection is one read of the instrument, by whichever reader makes it: a scrape, an
    /// OTLP export, the OpenTelemetry bridge, <c>Collect()</c>. With two readers (a scrape every 15 s
    /// and OTLP every 60 s) each reader's collections count, so set it for their combined rate.
    /// "Written" means its value changed: an add of 0, a gauge set to the value it had, or an
    /// up-down counter's adds that cancel out between two collections leave it idle. A series
    /// bound with <c>Bind</c> is in use by the caller holding it and is never expired; remove it
    /// with <c>Remove</c>. See docs/series-lifecycle.md.</para>
    /// </remarks>
    public int? RemoveSeriesIdleForCollections { get; set; }

    /// <summary>The largest <see cref="PartitionCount"/>: 65,536.</summary>
    public const int MaxPartitionCount = 65_536;

    /// <summary>
    /// The partitions each series keeps a slot for (8 bytes each): per processor, processor ids
    /// (the registry adds one overflow region with restartable sequences); per thread, the thread
    /// indexes the first regions are made for (more are added as threads take indexes).
    /// </summary>
    /// <remarks>
    /// <para>Default: <see langword="null"/>, read from the machine: per processor, the processors
    /// the process may run on at start (its affinity mask, i.e. its cpuset; the same reading for
    /// restartable sequences and <see cref="Interlocked"/>), and per thread the thread indexes handed
    /// out so far, at least <see cref="Environment.ProcessorCount"/>.</para>
    /// <para>Set it above the machine's count to measure on a small machine the memory and
    /// collection cost of a large one: the partitions past what the machine needs stay unwritten
    /// (a processor brought online later adds to the overflow region, or shares a partition, either
    /// way). Below what
    /// the machine needs (or above <see cref="MaxPartitionCount"/>), creating the registry throws
    /// <see cref="ArgumentOutOfRangeException"/>.</para>
    /// </remarks>
    public int? PartitionCount { get; set; }

    /// <summary>The most series (distinct exported identities) one instrument keeps, exactly, however
    /// many threads create series at once; past it, new tag sets are recorded into one series tagged
    /// <c>otel.metric.overflow=true</c>, so that no value is lost and memory stays bounded. An
    /// instrument therefore exports at most this many series plus one.</summary>
    /// <remarks>Default: <see cref="DefaultMaxSeriesPerInstrument"/>. Must be at least 2.</remarks>
    public int MaxSeriesPerInstrument { get; set; } = DefaultMaxSeriesPerInstrument;

    /// <summary>The most instruments the registry creates; creating one more throws
    /// <see cref="InvalidOperationException"/>, so that no instrument is created that an exporter
    /// would then leave out (OpenTelemetry's SDK drops the metric streams past its limit).</summary>
    /// <remarks>Default: <see cref="DefaultMaxInstruments"/>, OpenTelemetry .NET's default
    /// <c>MaxMetricStreams</c>. Must be at least 1. An <see cref="OperationData"/> counts once here,
    /// but is two instruments on the <c>MeterBridge</c>: an OpenTelemetry reader of the bridge needs
    /// a stream limit of twice this.</remarks>
    public int MaxInstruments { get; set; } = DefaultMaxInstruments;

    /// <summary>The most tags one series carries; a tag set with more is refused with
    /// <see cref="ArgumentException"/> and nothing is recorded.</summary>
    /// <remarks>Default: <see cref="DefaultMaxTagsPerSeries"/>, the largest tag set a lookup matches
    /// with a bit mask, without allocating; a lookup compares at most this many keys squared.
    /// From 1 to <see cref="MaxMaxTagsPerSeries"/>.</remarks>
    public int MaxTagsPerSeries { get; set; } = DefaultMaxTagsPerSeries;

    /// <summary>The most characters of a tag key; a longer key is refused with
    /// <see cref="ArgumentException"/> when its series would be created, and nothing is recorded.</summary>
    /// <remarks>Default: <see cref="DefaultMaxTagKeyLength"/>, as long as an instrument name may be. Must be at least 1.</remarks>
    public int MaxTagKeyLength { get; set; } = DefaultMaxTagKeyLength;

    /// <summary>The most characters of a string tag value; a longer value is refused with
    /// <see cref="ArgumentException"/> when its series would be created, and nothing is recorded.
    /// Every value is written on every scrape, so this bounds a scrape to about
    /// <see cref="MaxSeriesPerInstrument"/> × <see cref="MaxTagsPerSeries"/> × this per instrument.</summary>
    /// <remarks>Default: <see cref="DefaultMaxTagValueLength"/>: room for a route, a method or a
    /// user agent; a longer value is almost surely unbounded input (a whole URL, a message), which
    /// does not belong in a series' identity. Must be at least 1.</remarks>
    public int MaxTagValueLength { get; set; } = DefaultMaxTagValueLength;
}
