using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// The request durations, in seconds, that the <c>aspnetcore-histogram-*</c> workloads record in
/// turn, and ASP.NET Core's advised boundaries for <c>http.server.request.duration</c>.
/// </summary>
/// <remarks>
/// <para>One value in each of the 15 buckets, and a second in (0.1, 0.25], the bucket of a typical
/// API call, to make the cycle 16 long: a power of two, so the next one is found with a mask, and a
/// divisor of <see cref="HotLoop.AddsPerStopCheck"/>, so every worker records every value equally
/// often. Every value is a multiple of 2^-8, so any sum of them below 2^44 is exact in binary,
/// whatever order partitions or threads add it in: the harness checks the sums exactly.</para>
/// <para>A <c>-spread</c> workload records value i with route i mod 8, so each route gets values
/// i and i + 8 (<see cref="TaggedCheck"/> knows which).</para>
/// </remarks>
internal static class RequestDurations
{
    /// <summary>How many values the cycle has.</summary>
    public const int Count = 16;

    /// <summary>ASP.NET Core's advised bucket boundaries for <c>http.server.request.duration</c> (seconds).</summary>
    public static double[] Boundaries { get; } = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

    /// <summary>The values in the order they are recorded.</summary>
    public static double[] Cycle { get; } =
        [0.00390625, 0.0078125, 0.015625, 0.03125, 0.0625, 0.09375, 0.125, 0.1875, 0.375, 0.625, 0.875, 2, 4, 6, 8, 16];

    /// <summary>The <paramref name="index"/>-th value of the cycle, wrapping; no bounds check, since the mask keeps the index inside.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static double At(int index) =>
        Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(Cycle), index & (Count - 1));
}
