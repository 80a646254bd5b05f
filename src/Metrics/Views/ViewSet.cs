using System.Globalization;
using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Instruments.Histograms;
using ScalableMetrics.Naming;
using ScalableMetrics.Tags;

namespace ScalableMetrics.Views;

/// <summary>
/// A registry's views (<see cref="MetricRegistryOptions.Views"/>), checked and copied when the
/// registry is created: the first that matches an instrument's meter and name applies.
/// </summary>
/// <remarks>Immutable and thread-safe.</remarks>
internal sealed class ViewSet
{
    private readonly CompiledView[] _views;

    private ViewSet(CompiledView[] views) => _views = views;

    /// <summary>No views: every instrument as it is created.</summary>
    public static ViewSet Empty { get; } = new([]);

    /// <summary>Whether there are no views.</summary>
    public bool IsEmpty => _views.Length == 0;

    /// <summary>Checks and copies <paramref name="views"/>.</summary>
    /// <exception cref="ArgumentException">A view breaks a rule of <see cref="MetricView"/> (parameter <c>options</c>; the message names the view's position).</exception>
    public static ViewSet Of(IList<MetricView> views)
    {
        if (views.Count == 0)
        {
            return Empty;
        }

        var compiled = new CompiledView[views.Count];
        for (int i = 0; i < views.Count; i++)
        {
            compiled[i] = Compile(views[i], i);
        }

        return new ViewSet(compiled);
    }

    /// <summary>The view that applies to the instrument <paramref name="instrument"/> of meter <paramref name="meter"/>, or null.</summary>
    public CompiledView? Find(string meter, string instrument)
    {
        foreach (CompiledView view in _views)
        {
            if (view.Instrument.Matches(instrument) && (view.Meter is null || view.Meter.Matches(meter)))
            {
                return view;
            }
        }

        return null;
    }

    private static CompiledView Compile(MetricView? view, int index)
    {
        string which = $"{nameof(MetricRegistryOptions)}.{nameof(MetricRegistryOptions.Views)}[{index}]";
        if (view is null)
        {
            throw Invalid($"{which} is null.");
        }

        which += $", the {view},";
        if (string.IsNullOrWhiteSpace(view.Instrument))
        {
            throw Invalid($"{which} names no instrument: set {nameof(MetricView.Instrument)} (\"*\" for every instrument).");
        }

        if (view.Meter is { } meter && string.IsNullOrWhiteSpace(meter))
        {
            throw Invalid($"{which} has an empty {nameof(MetricView.Meter)}: leave it null for every meter.");
        }

        if (view.Name is { } name)
        {
            if (NamePattern.HasWildcard(view.Instrument))
            {
                throw Invalid($"{which} renames every instrument its pattern matches to one name {ExceptionText.Quote(name)}; a view that renames matches one instrument name, without wildcards (as in OpenTelemetry).");
            }

            if (!InstrumentNames.IsValidName(name))
            {
                throw Invalid($"{which} renames to {ExceptionText.Quote(name)}, which breaks OpenTelemetry's instrument name syntax (a letter, then up to 254 letters, digits, '_', '.', '-' or '/').");
            }
        }

        bool setsMore = view.Name is not null || view.TagKeys is not null || view.ExcludedTagKeys is not null || view.HistogramBoundaries is not null
            || view.ExponentialHistogram || view.ExponentialHistogramScale is not null || view.ExponentialHistogramMaxBuckets is not null
            || view.CardinalityLimit is not null || view.ExemplarFilter is not null;
        if (view.Drop && setsMore)
        {
            throw Invalid($"{which} drops its instruments and sets something else too; a view that drops takes no other setting.");
        }

        if (view.TagKeys is not null && view.ExcludedTagKeys is not null)
        {
            throw Invalid($"{which} sets both {nameof(MetricView.TagKeys)} and {nameof(MetricView.ExcludedTagKeys)}; set one.");
        }

        TagKeyFilter? filter = null;
        if ((view.TagKeys ?? view.ExcludedTagKeys) is { } keys)
        {
            foreach (string? key in keys)
            {
                if (string.IsNullOrEmpty(key))
                {
                    throw Invalid($"{which} lists a null or empty tag key.");
                }
            }

            filter = view.TagKeys is not null ? TagKeyFilter.KeepOnly(keys) : TagKeyFilter.Exclude(keys);
        }

        // Boundaries go with no exponential setting: a view buckets the histograms it matches one way.
        // Only ExponentialHistogram makes a listened histogram exponential (CompiledView.Exponential).
        bool setsExponential = view.ExponentialHistogram || view.ExponentialHistogramScale is not null || view.ExponentialHistogramMaxBuckets is not null;
        if (view.HistogramBoundaries is not null && setsExponential)
        {
            throw Invalid($"{which} sets both {nameof(MetricView.HistogramBoundaries)} and exponential settings ({nameof(MetricView.ExponentialHistogram)}, {nameof(MetricView.ExponentialHistogramScale)} or {nameof(MetricView.ExponentialHistogramMaxBuckets)}); set one.");
        }

        HistogramBuckets? buckets = null;
        if (view.HistogramBoundaries is { } boundaries)
        {
            try
            {
                buckets = HistogramBuckets.Create([.. boundaries], "boundaries");
            }
            catch (ArgumentException e)
            {
                throw new ArgumentException($"{which} has bucket boundaries a histogram refuses: {e.Message}", "options", e);
            }
        }

        if (view.ExponentialHistogramScale is { } scale && scale < ExponentialBuckets.MinScale)
        {
            throw Invalid($"{which} has {nameof(MetricView.ExponentialHistogramScale)} {scale}, not from {ExponentialBuckets.MinScale} to {ExponentialBuckets.MaxScaleAtDefaultRange}.");
        }

        // A view sets no range: a listened histogram it makes exponential takes the default one, which
        // above this scale takes more buckets than a histogram may, so that every instrument it matched
        // would be refused when created, long after the registry started.
        if (view.ExponentialHistogramScale is { } highScale && highScale > ExponentialBuckets.MaxScaleAtDefaultRange)
        {
            throw Invalid(TooHighAScale(which, highScale));
        }

        if (view.ExponentialHistogramMaxBuckets is < 2)
        {
            throw Invalid($"{which} has {nameof(MetricView.ExponentialHistogramMaxBuckets)} {view.ExponentialHistogramMaxBuckets}; it must be at least 2.");
        }

        if (view.CardinalityLimit is < 2)
        {
            throw Invalid($"{which} has {nameof(MetricView.CardinalityLimit)} {view.CardinalityLimit}; it must be at least 2.");
        }

        if (view.ExemplarFilter is { } exemplarFilter && !Enum.IsDefined(exemplarFilter))
        {
            throw Invalid($"{which} has {nameof(MetricView.ExemplarFilter)} {exemplarFilter}, not a defined {nameof(ScalableMetrics.ExemplarFilter)}.");
        }

        return new CompiledView(
            view.ToString(),
            view.Meter is null ? null : new NamePattern(view.Meter),
            new NamePattern(view.Instrument),
            view.Name,
            view.Drop,
            filter,
            buckets,
            view.ExponentialHistogram,
            view.ExponentialHistogramScale,
            view.ExponentialHistogramMaxBuckets,
            view.CardinalityLimit,
            view.ExemplarFilter);
    }

    private static ArgumentException Invalid(string message) => new(message, "options");

    // Why a view's scale above ExponentialBuckets.MaxScaleAtDefaultRange is refused. Invariant, so that
    // 2^-10 is written with a hyphen-minus whatever the culture.
    private static string TooHighAScale(string which, int scale)
    {
        const double Min = PartitionedExponentialHistogram.DefaultMinValue, Max = PartitionedExponentialHistogram.DefaultMaxValue;
        int highest = ExponentialBuckets.MaxScaleAtDefaultRange;
        string takes = scale > ExponentialBuckets.MaxScale
            ? FormattableString.Invariant($"no exponential histogram takes a scale above {ExponentialBuckets.MaxScale}")
            : FormattableString.Invariant($"scale {scale} would take {ExponentialBuckets.BucketCountOf(scale, Min, Max)}");
        return string.Create(
            CultureInfo.InvariantCulture,
            $"{which} has {nameof(MetricView.ExponentialHistogramScale)} {scale}, not from {ExponentialBuckets.MinScale} to {highest}. "
            + $"A view sets no value range: at the default range, 2^{Math.ILogB(Min)} to 2^{Math.ILogB(Max)}, scale {highest} is the highest "
            + $"whose buckets fit the {ExponentialBuckets.MaxBucketCount} a histogram takes ({takes}). A registry histogram of a narrower range "
            + $"can take a higher scale, up to {ExponentialBuckets.MaxScale}, through {nameof(MetricRegistry.CreateExponentialHistogram)}'s own scale.");
    }
}

/// <summary>A view of <see cref="MetricRegistryOptions.Views"/>, checked.</summary>
/// <param name="Description">The view, for messages.</param>
/// <param name="Meter">The meter names it matches; null for every meter.</param>
/// <param name="Instrument">The instrument names it matches.</param>
/// <param name="Name">The name it renames to, or null.</param>
/// <param name="Drop">Whether it drops what it matches.</param>
/// <param name="TagKeys">The tag keys it keeps or drops, or null.</param>
/// <param name="Buckets">The bucket boundaries it sets, or null.</param>
/// <param name="Exponential">Whether it makes a listened histogram exponential (<see cref="MetricView.ExponentialHistogram"/>, and only
/// it: a scale or most buckets alone leave an explicit histogram explicit); a registry histogram or operation it matches is refused.</param>
/// <param name="Scale">The exponential scale it sets, or null: for the exponential histograms it matches, ignored for an explicit one.</param>
/// <param name="MaxBuckets">The exponential reading's most buckets it sets, or null: for the exponential histograms it matches, ignored for an explicit one.</param>
/// <param name="CardinalityLimit">The series limit it sets, or null.</param>
/// <param name="ExemplarFilter">The exemplar filter it sets, or null.</param>
internal sealed record CompiledView(
    string Description,
    NamePattern? Meter,
    NamePattern Instrument,
    string? Name,
    bool Drop,
    TagKeyFilter? TagKeys,
    HistogramBuckets? Buckets,
    bool Exponential,
    int? Scale,
    int? MaxBuckets,
    int? CardinalityLimit,
    ExemplarFilter? ExemplarFilter);
