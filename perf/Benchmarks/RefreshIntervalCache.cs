using System.Runtime.CompilerServices;
using ScalableMetrics.Platform;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// A copy of <see cref="ProcessorId.CurrentPartition"/>'s cache (partition and reads left packed
/// in one primitive thread static) whose refresh interval is a parameter, so that intervals can
/// be compared without changing the core.
/// </summary>
internal static class RefreshIntervalCache
{
    private const int ReadsLeftBits = 16;
    private const int ReadsLeftMask = (1 << ReadsLeftBits) - 1;

#pragma warning disable IDE1006 // a [ThreadStatic] takes the t_ prefix, as in the runtime; the naming rules cannot tell
    [ThreadStatic]
    private static int t_partitionAndReadsLeft;
#pragma warning restore IDE1006

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int CurrentPartition(int refreshInterval)
    {
        int cached = t_partitionAndReadsLeft;
        if ((cached & ReadsLeftMask) != 0)
        {
            t_partitionAndReadsLeft = cached - 1;
            return cached >> ReadsLeftBits;
        }

        return Refresh(refreshInterval);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Refresh(int refreshInterval)
    {
        int id = ProcessorId.ReadFromOperatingSystem();
        int partition = id < 0 ? 0 : (int)((uint)id % (uint)ProcessorId.PartitionCount);
        t_partitionAndReadsLeft = (partition << ReadsLeftBits) | (refreshInterval - 1);
        return partition;
    }
}
