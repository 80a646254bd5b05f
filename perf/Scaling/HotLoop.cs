using System.Runtime.CompilerServices;

namespace ScalableMetrics.Scaling;

/// <summary>
/// The measured loop, shared by every implementation: add 1 until told to stop, counting the
/// adds in a local.
/// </summary>
/// <remarks>
/// The adder is a struct, so the JIT compiles one copy of the loop per
/// implementation with its <see cref="IAdder.Add"/> inlined: no interface dispatch per add. The
/// stop flag is read once per <see cref="AddsPerStopCheck"/> adds, the same for every
/// implementation, so that its volatile read costs nothing measurable. The loop is compiled fully
/// optimized at once: it runs only a few times per implementation, too few for tiered compilation
/// to replace its first, on-stack-replaced code, and every implementation should get the same JIT.
/// </remarks>
internal static class HotLoop
{
    /// <summary>How many adds run between two reads of the stop flag.</summary>
    public const int AddsPerStopCheck = 1024;

    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static long Run<TAdder>(TAdder adder, StopSignal stop)
        where TAdder : struct, IAdder
    {
        long adds = 0;
        while (!stop.IsSet)
        {
            for (int i = 0; i < AddsPerStopCheck; i++)
            {
                adder.Add();
            }

            adds += AddsPerStopCheck;
        }

        return adds;
    }
}
