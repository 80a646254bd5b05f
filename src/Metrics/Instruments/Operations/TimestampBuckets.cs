using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Instruments.Histograms;

namespace ScalableMetrics.Instruments.Operations;

/// <summary>
/// An <see cref="OperationData"/>'s bucket boundaries, given in seconds, converted once to
/// <see cref="Stopwatch"/> ticks so that a record compares <see cref="long"/>s. Immutable and thread-safe.
/// </summary>
/// <remarks>
/// An elapsed time of t ticks is at most b seconds exactly when t ≤ ⌊b × <see cref="Stopwatch.Frequency"/>⌋,
/// so each boundary becomes that floor (clamped to <see cref="long"/>). Boundaries closer than a tick
/// may become equal: the first of them then takes every such value, and the bucket after it stays empty.
/// </remarks>
internal sealed class TimestampBuckets
{
    private readonly long[] _boundaries;
    private readonly bool _searchBinary;

    public TimestampBuckets(ReadOnlySpan<double> boundarySeconds)
    {
        _boundaries = new long[boundarySeconds.Length];
        for (int i = 0; i < _boundaries.Length; i++)
        {
            double ticks = Math.Floor(boundarySeconds[i] * Stopwatch.Frequency);

            // The cast of a double at or past 2^63 is not defined to saturate everywhere: clamp first.
            _boundaries[i] = ticks >= long.MaxValue ? long.MaxValue : ticks <= long.MinValue ? long.MinValue : (long)ticks;
        }

        _searchBinary = _boundaries.Length >= HistogramBuckets.BinarySearchFromBoundaryCount;
    }

    /// <summary>The buckets: one more than the boundaries.</summary>
    public int BucketCount => _boundaries.Length + 1;

    /// <summary>The boundaries in ticks (for tests).</summary>
    internal ReadOnlySpan<long> Boundaries => _boundaries;

    /// <summary>The bucket of an elapsed time of <paramref name="ticks"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Find(long ticks)
    {
        long[] boundaries = _boundaries;
        if (_searchBinary)
        {
            int index = Array.BinarySearch(boundaries, ticks);

            // Equal boundaries: the search may land on any of them; the first takes the value.
            if (index >= 0)
            {
                while (index > 0 && boundaries[index - 1] == ticks)
                {
                    index--;
                }

                return index;
            }

            return ~index;
        }

        int i = 0;
        while (i < boundaries.Length && ticks > boundaries[i])
        {
            i++;
        }

        return i;
    }
}
