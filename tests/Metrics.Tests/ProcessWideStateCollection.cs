namespace ScalableMetrics.Tests;

/// <summary>
/// Tests that read or depend on process-wide state (thread indexes handed out by
/// <see cref="ThreadLease"/>, <see cref="RestartableSequence.RestartCount"/>): they run one at a
/// time, after the parallel tests, so that no other test takes indexes or restarts adds meanwhile.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ProcessWideStateCollection
{
    public const string Name = "Process-wide state";
}
