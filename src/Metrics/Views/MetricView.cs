namespace ScalableMetrics;

/// <summary>
/// A view: how the instruments it matches are stored and exported, set once when each is created
/// (never per measurement). One mechanism for every instrument a <see cref="MetricRegistry"/>
/// stores: its own and, through <c>AddMeter</c>, the listened ones (ASP.NET Core's, the runtime's).
/// Follows OpenTelemetry's <c>AddView</c> and <c>MetricStreamConfiguration</c>
/// (docs/views.md says where the rules differ).
/// </summary>
/// <remarks>
/// <para>Added to <see cref="MetricRegistryOptions.Views"/>, in code or from configuration
/// (<c>ScalableMetrics:Registry:Views:0:Instrument</c> and so on); checked when the registry is
/// created, which throws <see cref="ArgumentException"/> naming the view's position for a view that
/// breaks a rule below. Read once: changing a view after the registry exists changes nothing.</para>
/// <para><b>Matching.</b> <see cref="Meter"/> and <see cref="Instrument"/> match names as
/// <c>AddMeter</c> does: ordinally ignoring case, where <c>*</c> stands for any run of characters
/// and <c>?</c> for one. The first view that matches an instrument applies, and no other: an
/// instrument is one stream here (OpenTelemetry makes one stream per matching view).</para>
/// <para>Not thread-safe: set it up before the registry is created.</para>
/// </remarks>
public sealed class MetricView
{
    /// <summary>The meter name (or pattern) whose instruments this view matches: a listened meter's
    /// name (<c>Microsoft.AspNetCore.Hosting</c>), or the registry's own meter name for its
    /// instruments (<c>ScalableMetrics</c> unless <c>ScalableMetricsOptions.MeterName</c> says otherwise).</summary>
    /// <remarks>Default: <see langword="null"/>, every meter.</remarks>
    public string? Meter { get; set; }

    /// <summary>The instrument name (or pattern, <c>http.server.*</c>) this view matches, as the instrument is created (before any rename).</summary>
    /// <remarks>Default: <see langword="null"/>, which is invalid: every view names the instruments it matches (<c>*</c> for all).</remarks>
    public string? Instrument { get; set; }

    /// <summary>The name the matched instrument is stored and exported under, instead of its own.</summary>
    /// <remarks>Default: <see langword="null"/>, its own name. Only for a view whose <see cref="Instrument"/>
    /// has no wildcard (as OpenTelemetry requires); must follow OpenTelemetry's instrument name syntax.
    /// Two instruments renamed to one name are refused at the second's creation, naming both.</remarks>
    public string? Name { get; set; }

    /// <summary>Whether the matched instruments are dropped: not stored, not exported
    /// (OpenTelemetry's <c>MetricStreamConfiguration.Drop</c>).</summary>
    /// <remarks>Default: <see langword="false"/>. A dropped listened instrument is not listened to at all;
    /// a dropped registry instrument is still returned, to record into, but keeps a single series
    /// that nothing reads. A view that drops takes no other setting.</remarks>
    public bool Drop { get; set; }

    /// <summary>The only tag keys the matched instruments' series keep (OpenTelemetry's <c>TagKeys</c>);
    /// every other key is dropped when a tag set's series is looked up the first time, so that tag
    /// sets that differ only in dropped keys are one series and their values add.</summary>
    /// <remarks>Default: <see langword="null"/>, every key. Keys compare ordinally. Empty keeps none:
    /// every measurement goes to the one series without tags. Not with <see cref="ExcludedTagKeys"/>.</remarks>
    public IList<string>? TagKeys { get; set; }

    /// <summary>The tag keys the matched instruments' series drop, keeping all others; as for <see cref="TagKeys"/>.</summary>
    /// <remarks>Default: <see langword="null"/>, none. Not with <see cref="TagKeys"/>.</remarks>
    public IList<string>? ExcludedTagKeys { get; set; }

    /// <summary>The bucket boundaries of a matched histogram or operation (OpenTelemetry's
    /// <c>ExplicitBucketHistogramConfiguration.Boundaries</c>), instead of those asked for or advised.</summary>
    /// <remarks>Default: <see langword="null"/>, the instrument's own. Strictly increasing, finite, 1 to 256.
    /// Ignored for kinds without buckets; refused for an exponential histogram of the registry's own.
    /// Not with <see cref="ExponentialHistogram"/>, <see cref="ExponentialHistogramScale"/> or <see cref="ExponentialHistogramMaxBuckets"/>:
    /// a view buckets the histograms it matches one way.</remarks>
    public IList<double>? HistogramBoundaries { get; set; }

    /// <summary>Whether a matched listened histogram is stored as an exponential (native) histogram
    /// (OpenTelemetry's <c>Base2ExponentialBucketHistogramConfiguration</c>), with
    /// <see cref="ExponentialHistogramScale"/> and <see cref="ExponentialHistogramMaxBuckets"/>.</summary>
    /// <remarks>Default: <see langword="false"/>. Only this makes a histogram exponential: a view that sets
    /// <see cref="ExponentialHistogramScale"/> or <see cref="ExponentialHistogramMaxBuckets"/> and leaves this false
    /// sets them for the exponential histograms it matches (the registry's own) and leaves an explicit histogram,
    /// listened or the registry's, explicit.
    /// A registry histogram keeps the kind it was created with:
    /// a view that asks this of a <see cref="PartitionedHistogram"/> (or an <see cref="OperationData"/>) of the registry's is refused when it is created.
    /// An exponential histogram records zero and positive values: a listened negative value is dropped and counted.</remarks>
    public bool ExponentialHistogram { get; set; }

    /// <summary>The scale a matched exponential histogram records at (from -4 to 4).</summary>
    /// <remarks>Default: <see langword="null"/>, the instrument's own, or <see cref="PartitionedExponentialHistogram.DefaultScale"/>.
    /// Ignored for an explicit histogram: it does not make one exponential (<see cref="ExponentialHistogram"/> does).
    /// A view sets no value range: a listened histogram it makes exponential takes the default one,
    /// <see cref="PartitionedExponentialHistogram.DefaultMinValue"/> (2^-10) to <see cref="PartitionedExponentialHistogram.DefaultMaxValue"/> (2^20),
    /// and 4 is the highest scale at which that range's buckets fit the 512 a histogram takes (scale 5 would take 961),
    /// so a higher one is refused when the registry is created. A registry histogram of a narrower range can take
    /// a higher scale, up to 8, through <see cref="MetricRegistry.CreateExponentialHistogram"/>'s own <c>scale</c>
    /// (which this replaces: where the histogram's range does not fit at this scale, creating it throws naming the view).</remarks>
    public int? ExponentialHistogramScale { get; set; }

    /// <summary>The most buckets a matched exponential histogram's reading spans (at least 2): OpenTelemetry's <c>MaxSize</c>.</summary>
    /// <remarks>Default: <see langword="null"/>, the instrument's own, or <see cref="PartitionedExponentialHistogram.DefaultMaxBuckets"/>.
    /// Ignored for an explicit histogram: it does not make one exponential (<see cref="ExponentialHistogram"/> does).</remarks>
    public int? ExponentialHistogramMaxBuckets { get; set; }

    /// <summary>The most series a matched instrument keeps before new tag sets go to its overflow
    /// series (OpenTelemetry's <c>CardinalityLimit</c>), instead of <see cref="MetricRegistryOptions.MaxSeriesPerInstrument"/>:
    /// the instrument's one limit.</summary>
    /// <remarks>Default: <see langword="null"/>, the registry's. At least 2.</remarks>
    public int? CardinalityLimit { get; set; }

    /// <summary>Which measurements a matched counter or histogram keeps as exemplars, instead of
    /// <see cref="MetricRegistryOptions.ExemplarFilter"/>.</summary>
    /// <remarks>Default: <see langword="null"/>, the registry's. Ignored for kinds without exemplars.</remarks>
    public ExemplarFilter? ExemplarFilter { get; set; }

    /// <summary>The view, for messages: <c>view (Meter=…, Instrument=…)</c>.</summary>
    /// <returns>The view's match.</returns>
    public override string ToString() => $"view (Meter={Meter ?? "*"}, Instrument={Instrument})";
}
