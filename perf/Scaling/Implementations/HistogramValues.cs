using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// The values every histogram implementation of the harness records, in turn: one in each of the
/// 16 buckets of OpenTelemetry's default explicit boundaries (which are also
/// <c>PartitionedHistogram.DefaultBoundaries</c>), so that a record's bucket lookup is not always
/// the same, cheapest one, and every implementation does the same lookups.
/// </summary>
/// <remarks>
/// <para>Every value is a multiple of 0.5, so each is exact in binary and so is any sum of them
/// below 2^52: the harness can check a histogram's sum exactly, whatever order its partitions
/// were added in.</para>
/// <para>Each worker starts at the first value, and the harness's loop records
/// <see cref="HotLoop.AddsPerStopCheck"/> (a multiple of <see cref="Count"/>) values between two
/// reads of the stop flag, so every worker records every value equally often: each bucket then
/// holds exactly a sixteenth of the count, which <see cref="HistogramCheck"/> verifies.</para>
/// </remarks>
internal static class HistogramValues
{
    /// <summary>How many values the cycle has: a power of two, so the next one is found with a mask.</summary>
    public const int Count = 16;

    /// <summary>OpenTelemetry's default explicit bucket boundaries (opentelemetry-dotnet's
    /// <c>Metric.DefaultHistogramBounds</c>; the specification's default for an explicit bucket histogram).</summary>
    public static IReadOnlyList<double> DefaultBoundaries { get; } = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000];

    /// <summary>The values in the order they are recorded: value i falls in bucket i, the last above every boundary.</summary>
    public static double[] Cycle { get; } = [0, 2.5, 7.5, 17.5, 37.5, 62.5, 87.5, 175, 375, 625, 875, 1750, 3750, 6250, 8750, 20000];

    /// <summary>The sum of one pass over <see cref="Cycle"/>.</summary>
    public static double CycleSum { get; } = Cycle.Sum();

    /// <summary>The <paramref name="index"/>-th value of the cycle, wrapping; no bounds check, since the mask keeps the index inside.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static double At(double[] cycle, int index) =>
        Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(cycle), index & (Count - 1));
}
