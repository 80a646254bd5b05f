using ScalableMetrics.Platform;
using ScalableMetrics.Cells;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Tests;

/// <summary>
/// Tests that read or change process-wide state (thread indexes handed out by
/// <see cref="ThreadLease"/>, <see cref="RestartableSequence.RestartCount"/>, the live executable
/// mappings, thread affinity): they run one at a time, after the parallel tests, so that no other
/// test takes indexes, restarts adds or maps memory meanwhile, and none can satisfy or disturb
/// their assertions.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ProcessWideStateCollection
{
    public const string Name = "Process-wide state";
}
