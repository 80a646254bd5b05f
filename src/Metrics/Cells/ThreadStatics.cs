using ScalableMetrics.Platform;

namespace ScalableMetrics.Cells;

/// <summary>
/// The two per-thread values the hot path reads: the cached processor partition and the
/// per-thread lease index.
/// </summary>
/// <remarks>
/// Both are primitives, in one class, on purpose. A primitive thread static is a TLS base lookup
/// and one load; the JIT's output (<c>DOTNET_JitDisasm</c>, .NET 10, linux-x64) showed that the
/// lease, when it lived in <see cref="ThreadLease"/> beside that class's other statics, was
/// reached through the generic thread-static helper path, with two more dependent loads, while
/// here both take the inlined path.
/// </remarks>
internal static class ThreadStatics
{
    /// <summary>See <see cref="ProcessorId.CurrentPartition"/>: <c>partition &lt;&lt; 16 | readsLeft</c>; 0 on a new thread.</summary>
    [ThreadStatic]
    internal static int t_partitionAndReadsLeft;

    /// <summary>See <see cref="ThreadLease"/>: the thread's index plus one; 0 until the thread first writes a per-thread series.</summary>
    [ThreadStatic]
    internal static int t_leaseIndexPlusOne;
}
