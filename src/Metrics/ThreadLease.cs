using System.Runtime.CompilerServices;

namespace ScalableMetrics;

/// <summary>
/// Gives each thread that writes a per-thread series a small index, its lease, for as long as it
/// lives; an ended thread's index goes to a later thread. Series keep their thread cells in an
/// array indexed by it.
/// </summary>
/// <remarks>
/// The lease lives in a primitive <c>[ThreadStatic]</c> (<see cref="ThreadStatics"/>), one TLS load, where a thread-static
/// array of cells costs three more dependent loads (measured: 3.8 ns against 11.5 ns per add in
/// one run on this 2-core VM, while other work ran). A lease is <c>generation &lt;&lt; 32 | index</c>
/// with a generation of at least 1, so 0 means "none yet", and a cell left by an index's earlier
/// holder never matches a later holder's lease.
/// </remarks>
internal static class ThreadLease
{
    private const int MinimumSweepCount = 64;

    private static readonly Lock s_lock = new();
    private static readonly List<Thread?> s_holders = [];
    private static readonly List<int> s_generations = [];
    private static readonly Stack<int> s_freeIndexes = new();
    private static int s_sweepAtCount = MinimumSweepCount;

    /// <summary>The calling thread's lease, or 0 if it has none yet.</summary>
    public static long Current
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => ThreadStatics.t_lease;
    }

    /// <summary>The index part of a lease.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int IndexOf(long lease) => (int)lease;

    /// <summary>The number of indexes handed out so far: every live lease's index is below it.</summary>
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

    /// <summary>Returns the calling thread's lease, taking one if it has none.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long AcquireForCurrentThread()
    {
        if (ThreadStatics.t_lease != 0)
        {
            return ThreadStatics.t_lease;
        }

        lock (s_lock)
        {
            // Free the indexes of ended threads once the table has doubled since the last
            // sweep: the table stays within twice the peak of live writer threads (plus 64),
            // at amortized O(1) per lease, however many threads come and go.
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
                s_generations.Add(0);
            }

            s_holders[index] = Thread.CurrentThread;
            int generation = ++s_generations[index];
            long lease = ((long)generation << 32) | (uint)index;
            ThreadStatics.t_lease = lease;
            return lease;
        }
    }
}
