using System.Runtime.CompilerServices;
using ScalableMetrics.Instruments.Histograms;

namespace ScalableMetrics.Instruments.ExponentialHistograms;

/// <summary>
/// An exponential histogram's fixed layout, checked once: the scale, the index range
/// [<see cref="MinIndex"/>, <see cref="MaxIndex"/>] of its positive buckets and the zero bucket below
/// them. Bucket i counts values in (base^i, base^(i + 1)] with base = 2^(2^-scale), OpenTelemetry's
/// "Exponential Buckets" mapping (the data model's <c>ExponentialHistogram</c>), which Prometheus'
/// native histograms share (their schema is the scale). Immutable and thread-safe.
/// </summary>
internal sealed class ExponentialBuckets
{
    /// <summary>The lowest scale: Prometheus' lowest native histogram schema, base 2^16 (OpenTelemetry goes to -10).</summary>
    public const int MinScale = -4;

    /// <summary>The highest scale: Prometheus' highest native histogram schema, base 2^(2^-8) (OpenTelemetry goes to 20), so that every reading exports as it is.</summary>
    public const int MaxScale = 8;

    /// <summary>The most positive buckets an instrument takes: a series costs one slot per bucket per partition.</summary>
    public const int MaxBucketCount = 512;

    /// <summary>The highest scale at which the default range, <see cref="PartitionedExponentialHistogram.DefaultMinValue"/>
    /// to <see cref="PartitionedExponentialHistogram.DefaultMaxValue"/>, fits <see cref="MaxBucketCount"/> buckets
    /// (4: 481 buckets; scale 5 would take 961): the highest a view may set, since a view sets no range
    /// and a listened histogram it makes exponential takes the default one.</summary>
    public static int MaxScaleAtDefaultRange { get; } = MaxScaleFitting(PartitionedExponentialHistogram.DefaultMinValue, PartitionedExponentialHistogram.DefaultMaxValue);

    // 2^scale / ln 2, for Find: computed once, not on every record.
    private readonly double _scaleFactor;

    private ExponentialBuckets(int scale, int minIndex, int maxIndex, double minValue, double maxValue, int maxBuckets, HistogramBuckets? classic)
    {
        Classic = classic;
        Scale = scale;
        MinIndex = minIndex;
        MaxIndex = maxIndex;
        MinValue = minValue;
        MaxValue = maxValue;
        MaxBuckets = maxBuckets;
        ZeroThreshold = LowerBoundary(minIndex, scale);
        _scaleFactor = ScaleFactor(scale);
    }

    /// <summary>The scale the instrument records at.</summary>
    public int Scale { get; }

    /// <summary>The index of the first positive bucket; values at or below its lower boundary count in the zero bucket.</summary>
    public int MinIndex { get; }

    /// <summary>The index of the last positive bucket; values above it count in it too.</summary>
    public int MaxIndex { get; }

    /// <summary>The smallest value the instrument was asked to tell apart from zero.</summary>
    public double MinValue { get; }

    /// <summary>The largest value the instrument was asked to keep in its own bucket.</summary>
    public double MaxValue { get; }

    /// <summary>The most buckets a reading spans; readings downscale to fit.</summary>
    public int MaxBuckets { get; }

    /// <summary>The lower boundary of bucket <see cref="MinIndex"/>: values at or below it count in the zero bucket.</summary>
    public double ZeroThreshold { get; }

    /// <summary>The positive buckets.</summary>
    public int BucketCount => MaxIndex - MinIndex + 1;

    /// <summary>The classic buckets recorded beside the exponential ones, or null for none.</summary>
    public HistogramBuckets? Classic { get; }

    /// <summary>The slot of classic bucket 0 in a series' region: after the zero bucket and the positive buckets.</summary>
    public int ClassicFirstSlot => BucketCount + 1;

    /// <summary>The count slots of a series' region: the zero bucket, the positive buckets, the classic buckets (none without <see cref="Classic"/>).</summary>
    public int CountSlots => BucketCount + 1 + (Classic?.BucketCount ?? 0);

    /// <summary>Checks the options and builds the layout; <paramref name="scaleSetBy"/>, where not the caller
    /// (a view), is named in the message of a range that does not fit at the scale.</summary>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of its range (the message says which and why).</exception>
    /// <exception cref="ArgumentException"><paramref name="classicBoundaries"/> is empty, too long, not finite or not strictly increasing.</exception>
    public static ExponentialBuckets Create(int scale, double minValue, double maxValue, int maxBuckets, IReadOnlyList<double>? classicBoundaries = null, string? scaleSetBy = null)
    {
        HistogramBuckets? classic = classicBoundaries is null ? null : HistogramBuckets.Create(classicBoundaries, nameof(classicBoundaries));
        CheckOptions(scale, minValue, maxValue, maxBuckets);
        long bucketCount = BucketCountOf(scale, minValue, maxValue);
        if (bucketCount > MaxBucketCount)
        {
            string scaleText = scaleSetBy is null ? $"scale {scale}" : $"scale {scale} ({scaleSetBy})";
            throw new ArgumentOutOfRangeException(nameof(maxValue), maxValue, $"From {minValue:R} to {maxValue:R} at {scaleText} takes {bucketCount} buckets, more than {MaxBucketCount}; lower the scale or narrow the range.");
        }

        return new ExponentialBuckets(scale, MapToIndex(minValue, scale), MapToIndex(maxValue, scale), minValue, maxValue, maxBuckets, classic);
    }

    /// <summary>Checks each option on its own (not whether the range fits at the scale, which
    /// <see cref="Create"/> checks): a caller's arguments, before a view replaces the scale or the most buckets.</summary>
    /// <exception cref="ArgumentOutOfRangeException">An option is out of its range (the message says which and why).</exception>
    public static void CheckOptions(int scale, double minValue, double maxValue, int maxBuckets)
    {
        if (scale is < MinScale or > MaxScale)
        {
            throw new ArgumentOutOfRangeException(nameof(scale), scale, $"The scale must be from {MinScale} to {MaxScale}, Prometheus' native histogram schemas.");
        }

        if (!double.IsNormal(minValue) || minValue <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(minValue), minValue, "The smallest value must be a positive, finite, normal double.");
        }

        if (!double.IsFinite(maxValue) || maxValue <= minValue)
        {
            throw new ArgumentOutOfRangeException(nameof(maxValue), maxValue, "The largest value must be finite and above the smallest.");
        }

        if (maxBuckets < 2)
        {
            throw new ArgumentOutOfRangeException(nameof(maxBuckets), maxBuckets, "A reading needs at least 2 buckets.");
        }
    }

    /// <summary>The positive buckets from <paramref name="minValue"/> to <paramref name="maxValue"/> at <paramref name="scale"/>
    /// (a range and a scale <see cref="Create"/> takes), which <see cref="Create"/> refuses above <see cref="MaxBucketCount"/>.</summary>
    public static long BucketCountOf(int scale, double minValue, double maxValue) => (long)MapToIndex(maxValue, scale) - MapToIndex(minValue, scale) + 1;

    /// <summary>The highest scale, from <see cref="MinScale"/> to <see cref="MaxScale"/>, at which <paramref name="minValue"/>
    /// to <paramref name="maxValue"/> (a range <see cref="Create"/> takes) fits <see cref="MaxBucketCount"/> buckets;
    /// <see cref="MinScale"/> − 1 where none does.</summary>
    public static int MaxScaleFitting(double minValue, double maxValue)
    {
        int scale = MaxScale;
        while (scale >= MinScale && BucketCountOf(scale, minValue, maxValue) > MaxBucketCount)
        {
            scale--;
        }

        return scale;
    }

    /// <summary>
    /// The index of the bucket (base^i, base^(i + 1)] that holds <paramref name="value"/> (positive,
    /// finite and normal) at <paramref name="scale"/>: OpenTelemetry's reference mapping. At scale ≤ 0
    /// it is read from the exponent bits, exactly; above, from <c>Math.Log</c>, exact at powers of two
    /// and within one bucket elsewhere (as the specification allows), and never outside the value's
    /// power of two.
    /// </summary>
    public static int MapToIndex(double value, int scale) => MapToIndex(value, scale, ScaleFactor(scale));

    // MapToIndex with the scale's factor (2^scale / ln 2) given.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int MapToIndex(double value, int scale, double scaleFactor)
    {
        long bits = BitConverter.DoubleToInt64Bits(value);
        int exponent = (int)((bits >> 52) & 0x7FF) - 1023;
        bool powerOfTwo = (bits & 0xF_FFFF_FFFF_FFFFL) == 0;
        if (scale <= 0)
        {
            // A power of two is the upper, inclusive boundary of the bucket below it.
            return (powerOfTwo ? exponent - 1 : exponent) >> -scale;
        }

        if (powerOfTwo)
        {
            return (exponent << scale) - 1;
        }

        int index = (int)Math.Floor(Math.Log(value) * scaleFactor);
        // Rounding in Log may step across a power of two; the exponent bits say which side the value is on.
        return Math.Clamp(index, exponent << scale, ((exponent + 1) << scale) - 1);
    }

    /// <summary>The lower boundary of bucket <paramref name="index"/> at <paramref name="scale"/>: base^index.</summary>
    public static double LowerBoundary(int index, int scale) => Math.Pow(2, Math.ScaleB(index, -scale));

    /// <summary>The slot of <paramref name="value"/> (not NaN, not negative): 0 for the zero bucket, 1 + (index - <see cref="MinIndex"/>) for the others; values above the range count in the last.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Find(double value)
    {
        if (value <= ZeroThreshold)
        {
            return 0;
        }

        if (value >= MaxValue)
        {
            // Also +∞, which MapToIndex does not take.
            return BucketCount;
        }

        return 1 + Math.Clamp(MapToIndex(value, Scale, _scaleFactor), MinIndex, MaxIndex) - MinIndex;
    }

    /// <summary>Whether <paramref name="other"/> is the same layout.</summary>
    public bool SameAs(ExponentialBuckets other) => FirstDifference(other) is null;

    /// <summary>The first option, in <see cref="Create"/>'s (and <c>CreateExponentialHistogram</c>'s) order, in which
    /// <paramref name="other"/> is another layout, by its parameter name: <c>scale</c>, <c>minValue</c>, <c>maxValue</c>
    /// (the bucket each falls in), <c>maxBuckets</c>, <c>classicBoundaries</c>; null for the same layout.</summary>
    public string? FirstDifference(ExponentialBuckets other) =>
        Scale != other.Scale ? "scale"
        : MinIndex != other.MinIndex ? "minValue"
        : MaxIndex != other.MaxIndex ? "maxValue"
        : MaxBuckets != other.MaxBuckets ? "maxBuckets"
        : !(Classic is null ? other.Classic is null : other.Classic is not null && Classic.SameAs(other.Classic)) ? "classicBoundaries"
        : null;

    /// <summary>The layout in words, for exception messages.</summary>
    public override string ToString() =>
        $"scale {Scale}, values {MinValue:R} to {MaxValue:R}, at most {MaxBuckets} buckets per reading, "
        + (Classic is null ? "no classic buckets" : $"classic boundaries [{string.Join(", ", Classic.Boundaries.Select(b => b.ToString("R", System.Globalization.CultureInfo.InvariantCulture)))}]");

    private static double ScaleFactor(int scale) => Math.ScaleB(1 / Math.Log(2), scale);
}
