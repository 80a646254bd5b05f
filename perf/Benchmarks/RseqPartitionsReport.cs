using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// Prints the processors the process may use, the regions a restartable add takes here by default
/// and with <c>cpu_id</c> preferred, which one the core chose, and the calling thread's ids: run it under <c>taskset</c> to see
/// what confining the process does to each.
/// </summary>
/// <remarks>
/// <c>dotnet run -c Release --project perf/Benchmarks -- rseq-partitions</c>, or prefixed with
/// <c>taskset -c 1</c>.
/// </remarks>
internal static class RseqPartitionsReport
{
    public const string Command = "rseq-partitions";

    public static void Write(TextWriter output)
    {
        output.WriteLine($"kernel AT_RSEQ_FEATURE_SIZE: {RseqArea.KernelFeatureSize} (mm_cid filled: {RseqArea.KernelFillsMmCid})");
        output.WriteLine($"processors: {ProcessorSet.Current.Describe()}");
        foreach ((string name, bool preferCpuId) in (ReadOnlySpan<(string, bool)>)[("by default", false), ($"with {RestartableSequence.PreferCpuIdSwitchName}", true)])
        {
            RseqRegionPlan plan = RseqPartitionBounds.Choose(ProcessorSet.Current, RseqArea.KernelFillsMmCid, preferCpuId);
            output.WriteLine($"{name}: {plan.IdField}, {plan.PartitionCount} regions{(plan.RegionOfId is null ? "" : " through a map")}");
        }

        output.WriteLine($"RestartableSequence: IsSupported={RestartableSequence.IsSupported}, IdField={RestartableSequence.IdField}, PartitionCount={RestartableSequence.PartitionCount}{(RestartableSequence.UnsupportedReason is { } reason ? $" ({reason})" : string.Empty)}");
        if (RseqArea.TryGetOffset(out long offset) is null)
        {
            output.WriteLine($"this thread: cpu_id {RseqArea.ReadCurrentThreadId(offset, RseqIdField.CpuId)}, mm_cid {(RseqArea.KernelFillsMmCid ? RseqArea.ReadCurrentThreadId(offset, RseqIdField.MmCid).ToString(System.Globalization.CultureInfo.InvariantCulture) : "n/a")}");
        }
    }
}
