using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Tests.Diagnostics;

/// <summary>
/// The registry's write-path policy as a table, the tests' one statement of it:
/// <see cref="WritePathTests"/> checks <c>WritePathChoice</c> against every row, and the tests of
/// a real registry look up the row of what they asked for and what this process supports, rather
/// than restating the policy as an expression.
/// </summary>
internal static class WritePathPolicy
{
    /// <summary>The strategy asked for, whether restartable sequences are allowed, whether the operating system gives processor ids, why restartable sequences are unavailable (null where they are available), and the write path that follows.</summary>
    public static TheoryData<PartitionStrategy, bool, bool, string?, WritePath> Rows => new()
    {
        { PartitionStrategy.PerThread, true, true, null, WritePath.PerThread },
        { PartitionStrategy.PerThread, true, true, "no rseq", WritePath.PerThread },
        { PartitionStrategy.PerThread, true, false, null, WritePath.PerThread },
        { PartitionStrategy.PerThread, true, false, "no rseq", WritePath.PerThread },
        { PartitionStrategy.PerThread, false, true, null, WritePath.PerThread },
        { PartitionStrategy.PerThread, false, true, "no rseq", WritePath.PerThread },
        { PartitionStrategy.PerThread, false, false, null, WritePath.PerThread },
        { PartitionStrategy.PerThread, false, false, "no rseq", WritePath.PerThread },
        { PartitionStrategy.PerProcessor, true, false, null, WritePath.PerThread },
        { PartitionStrategy.PerProcessor, true, false, "no rseq", WritePath.PerThread },
        { PartitionStrategy.PerProcessor, false, false, null, WritePath.PerThread },
        { PartitionStrategy.PerProcessor, false, false, "no rseq", WritePath.PerThread },
        { PartitionStrategy.PerProcessor, false, true, null, WritePath.InterlockedProcessorId },
        { PartitionStrategy.PerProcessor, false, true, "glibc too old", WritePath.InterlockedProcessorId },
        { PartitionStrategy.PerProcessor, true, true, "glibc too old", WritePath.InterlockedProcessorId },
        { PartitionStrategy.PerProcessor, true, true, null, WritePath.RestartableSequence },
    };

    /// <summary>The write path of the one row that matches.</summary>
    public static WritePath For(PartitionStrategy strategy, bool useRestartableSequences, bool processorIdSupported, bool restartableSupported)
    {
        object?[] row = Assert.Single(
            Rows,
            row => (PartitionStrategy)row[0] == strategy
                && (bool)row[1] == useRestartableSequences
                && (bool)row[2] == processorIdSupported
                && (row[3] is null) == restartableSupported);
        return (WritePath)row[4]!;
    }

    /// <summary>The write path of the row for <paramref name="options"/> and what this process supports (<see cref="ProcessorId.IsSupported"/>, <see cref="RestartableSequence.IsSupported"/>, each tested against the operating system apart).</summary>
    public static WritePath ForThisProcess(MetricRegistryOptions options) =>
        For(options.Strategy, options.UseRestartableSequences, ProcessorId.IsSupported, RestartableSequence.IsSupported);
}
