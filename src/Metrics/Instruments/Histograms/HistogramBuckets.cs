using System.Collections.ObjectModel;
using System.Runtime.CompilerServices;
using ScalableMetrics.Instruments.Operations;

namespace ScalableMetrics.Instruments.Histograms;

/// <summary>
/// A histogram's bucket boundaries, copied and checked once: strictly increasing, finite, from 1
/// to <see cref="MaxBoundaryCount"/> of them. Bucket i counts values in
/// (boundary[i - 1], boundary[i]] (the upper bound inclusive, as Prometheus' <c>le</c>); the last
/// bucket, past the last boundary, counts the rest up to +∞. Immutable and thread-safe.
/// </summary>
internal sealed class HistogramBuckets
{
    /// <summary>
    /// From this many boundaries on, <see cref="Find"/> searches binary; below, linear. Measured
    /// (perf/Benchmarks, category <c>bucket-lookup</c>; figures in perf/results): with values spread
    /// evenly over the buckets the two cost the same at 32 boundaries, the linear scan wins below
    /// (a short array stays in one or two cache lines and its branches predict well) and the binary
    /// search above. Latencies crowd the low buckets, which favours the scan further.
    /// OpenTelemetry .NET switches at 50 (<c>DefaultBoundaryCountForBinarySearch</c>).
    /// </summary>
    public const int BinarySearchFromBoundaryCount = 32;

    /// <summary>The most boundaries a histogram takes: a series costs one slot per bucket per partition.</summary>
    public const int MaxBoundaryCount = 256;

    private readonly double[] _boundaries;
    private readonly bool _searchBinary;

    private HistogramBuckets(double[] boundaries)
    {
        _boundaries = boundaries;
        _searchBinary = boundaries.Length >= BinarySearchFromBoundaryCount;
        Boundaries = new ReadOnlyCollection<double>(boundaries);
    }

    /// <summary>The boundaries, read-only.</summary>
    public IReadOnlyList<double> Boundaries { get; }

    /// <summary>The buckets: one more than the boundaries.</summary>
    public int BucketCount => _boundaries.Length + 1;

    /// <summary>Checks <paramref name="boundaries"/> and copies them.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="boundaries"/> is null.</exception>
    /// <exception cref="ArgumentException">Empty, more than <see cref="MaxBoundaryCount"/>, a NaN or infinite boundary, or not strictly increasing (unsorted or duplicated); the message says which and where.</exception>
    public static HistogramBuckets Create(IReadOnlyList<double> boundaries, string paramName)
    {
        ArgumentNullException.ThrowIfNull(boundaries, paramName);
        double[] copy = [.. boundaries];
        if (copy.Length == 0)
        {
            throw new ArgumentException("A histogram needs at least one bucket boundary; the list is empty.", paramName);
        }

        if (copy.Length > MaxBoundaryCount)
        {
            throw new ArgumentException($"A histogram takes at most {MaxBoundaryCount} bucket boundaries; {copy.Length} were given.", paramName);
        }

        for (int i = 0; i < copy.Length; i++)
        {
            double boundary = copy[i];
            if (double.IsNaN(boundary))
            {
                throw new ArgumentException($"Bucket boundary {i} is NaN; boundaries must be finite.", paramName);
            }

            if (double.IsInfinity(boundary))
            {
                throw new ArgumentException($"Bucket boundary {i} is {(boundary > 0 ? "+∞" : "-∞")}; boundaries must be finite (the last bucket reaches +∞ already).", paramName);
            }

            if (i > 0 && boundary == copy[i - 1])
            {
                throw new ArgumentException($"Bucket boundary {i} ({boundary:R}) repeats boundary {i - 1}; boundaries must be strictly increasing.", paramName);
            }

            if (i > 0 && boundary < copy[i - 1])
            {
                throw new ArgumentException($"Bucket boundary {i} ({boundary:R}) is below boundary {i - 1} ({copy[i - 1]:R}); boundaries must be sorted, strictly increasing.", paramName);
            }
        }

        return new HistogramBuckets(copy);
    }

    /// <summary>The bucket of <paramref name="value"/> (not NaN): linear below <see cref="BinarySearchFromBoundaryCount"/> boundaries, binary from there.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Find(double value) => _searchBinary ? FindBinary(value) : FindLinear(value);

    /// <summary>The bucket of <paramref name="value"/> (not NaN) by a linear scan: the first boundary at or above it, or the last bucket.</summary>
    /// <remarks>Not inlined: inlined into a record, whose value must survive the native add's call
    /// (every xmm register is caller-saved), the JIT kept the value on the stack and reloaded it on
    /// every step of the scan, and the record's speed moved with the caller's shape (perf/results,
    /// issue 11 review).</remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public int FindLinear(double value)
    {
        double[] boundaries = _boundaries;
        int i = 0;
        while (i < boundaries.Length && value > boundaries[i])
        {
            i++;
        }

        return i;
    }

    /// <summary>The bucket of <paramref name="value"/> (not NaN) by a binary search.</summary>
    public int FindBinary(double value)
    {
        // An exact match is the bucket of that boundary (upper bound inclusive); otherwise the
        // complement of the first boundary above the value, which is its bucket too.
        int index = Array.BinarySearch(_boundaries, value);
        return index >= 0 ? index : ~index;
    }

    /// <summary>Whether <paramref name="other"/> holds the same boundaries.</summary>
    public bool SameAs(HistogramBuckets other) => ReferenceEquals(this, other) || _boundaries.AsSpan().SequenceEqual(other._boundaries);

    /// <summary>The boundaries in <see cref="System.Diagnostics.Stopwatch"/> ticks, for boundaries in seconds (see <see cref="TimestampBuckets"/>).</summary>
    public TimestampBuckets ToTimestampBuckets() => new(_boundaries);
}
