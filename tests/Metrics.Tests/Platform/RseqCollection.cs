namespace ScalableMetrics.Tests.Platform;

/// <summary>
/// Tests that read or change process-wide rseq state (<c>RestartCount</c>, the live executable
/// mappings, thread affinity): run alone, after the parallel collections, so that no other test's
/// adds can satisfy or disturb their assertions.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class RseqCollection
{
    public const string Name = "rseq process-wide state";
}
