using System.Runtime.CompilerServices;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// A copy of <see cref="ProcessorId.CurrentPartition"/>'s cache whose refresh interval is a
/// parameter, so that intervals can be compared without changing the core.
/// </summary>
internal static class RefreshIntervalCache
{
    [ThreadStatic]
    private static CachedPartition t_cached;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int CurrentPartition(int refreshInterval)
    {
        ref CachedPartition cached = ref t_cached;
        if (--cached.ReadsLeft >= 0)
        {
            return cached.Partition;
        }

        return Refresh(refreshInterval);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Refresh(int refreshInterval)
    {
        int id = ProcessorId.ReadFromOperatingSystem();
        int partition = id < 0 ? 0 : (int)((uint)id % (uint)ProcessorId.PartitionCount);
        ref CachedPartition cached = ref t_cached;
        cached.Partition = partition;
        cached.ReadsLeft = refreshInterval - 1;
        return partition;
    }

    private struct CachedPartition
    {
        public int Partition;
        public int ReadsLeft;
    }
}
