using System.Runtime.CompilerServices;

namespace ScalableMetrics.Cells;

/// <summary>
/// How many adds of the restartable write path went to the overflow region, process-wide: adds
/// whose thread's id had no region of its own (a processor brought online or allowed after the
/// regions were sized, an <c>mm_cid</c> past them) or whose kind of restartable add is unavailable.
/// Each is exact, but all of them share one atomic cell per slot: a contention cliff that this count
/// makes visible (the self-metric <c>scalablemetrics.overflow_region.adds</c>).
/// </summary>
/// <remarks>
/// <para>Counted only on the overflow path, out of line (<see cref="RestartableWritePath"/>), so the
/// inlined add keeps its machine code. The count is striped over padded cells by managed thread id,
/// so that counting does not add a second shared line to the one the overflow add already contends
/// on; a read sums the cells, and never goes down, since each cell only grows.</para>
/// <para>Thread-safe.</para>
/// </remarks>
internal static class OverflowRegionAdds
{
    private const int Stripes = 32;

    // 128 bytes a stripe (two cache lines, against the adjacent-line prefetcher), the count at its
    // end as the runtime's padded cells keep theirs.
    private const int LongsPerStripe = 16;

    private static readonly long[] s_stripes = new long[Stripes * LongsPerStripe];

    /// <summary>The adds counted since the process started.</summary>
    public static long Count
    {
        get
        {
            long sum = 0;
            for (int stripe = 0; stripe < Stripes; stripe++)
            {
                sum += Volatile.Read(ref s_stripes[(stripe * LongsPerStripe) + LongsPerStripe - 1]);
            }

            return sum;
        }
    }

    /// <summary>Counts one add to the overflow region.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Increment() =>
        Interlocked.Increment(ref s_stripes[((Environment.CurrentManagedThreadId & (Stripes - 1)) * LongsPerStripe) + LongsPerStripe - 1]);
}
