using System.Runtime.CompilerServices;

namespace ScalableMetrics.Cells;

/// <summary>
/// Gives each thread that writes a per-thread series a small index, its lease, for as long as it
/// lives; an ended thread's index goes to a later thread. Per-thread series keep one region per
/// index (<see cref="Cells.ArenaChunk.ThreadSlot"/>), so the index's holders write a slot one after the
/// other, never two at once.
/// </summary>
/// <remarks>
/// The index lives in a primitive <c>[ThreadStatic]</c> (<see cref="ThreadStatics"/>), one TLS
/// load, where a thread-static array of cells costs three more dependent loads (measured several
/// times slower per add: perf/results/README.md, "Figures that lived in code comments"). It is stored plus
/// one, so that a new thread's 0 reads as -1: "none yet", past the end of every array.
/// Thread-safe.
/// </remarks>
internal static class ThreadLease
{
    private const int MinimumSweepCount = 64;

    private static readonly Lock s_lock = new();
    private static readonly List<Thread?> s_holders = [];
    private static readonly Stack<int> s_freeIndexes = new();
    private static int s_sweepAtCount = MinimumSweepCount;

    /// <summary>The calling thread's index, or -1 if it has none yet.</summary>
    public static int CurrentIndex
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => ThreadStatics.t_leaseIndexPlusOne - 1;
    }

    /// <summary>The number of indexes handed out so far: every live thread's index is below it.</summary>
    public static int IndexCount
    {
        get
        {
            lock (s_lock)
            {
                return s_holders.Count;
            }
        }
    }

    /// <summary>Returns the calling thread's index, taking one if it has none.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int AcquireIndexForCurrentThread()
    {
        if (ThreadStatics.t_leaseIndexPlusOne != 0)
        {
            return ThreadStatics.t_leaseIndexPlusOne - 1;
        }

        lock (s_lock)
        {
            // Free the indexes of ended threads once the table has doubled since the last
            // sweep: the table stays within twice the peak of live writer threads (plus 64),
            // at amortized O(1) per lease, however many threads come and go. An index is freed
            // only once its holder has ended, so it never has two living holders.
            if (s_freeIndexes.Count == 0 && s_holders.Count >= s_sweepAtCount)
            {
                int live = 0;
                for (int i = 0; i < s_holders.Count; i++)
                {
                    if (s_holders[i] is { } holder && !holder.IsAlive)
                    {
                        s_holders[i] = null;
                        s_freeIndexes.Push(i);
                    }
                    else if (s_holders[i] is not null)
                    {
                        live++;
                    }
                }

                s_sweepAtCount = Math.Max(MinimumSweepCount, live * 2);
            }

            if (!s_freeIndexes.TryPop(out int index))
            {
                index = s_holders.Count;
                s_holders.Add(null);
            }

            s_holders[index] = Thread.CurrentThread;
            ThreadStatics.t_leaseIndexPlusOne = index + 1;
            return index;
        }
    }
}
