namespace ScalableMetrics.Diagnostics;

/// <summary>
/// The registry's policy for its <see cref="WritePath"/>: the strategy asked for, as this process
/// can carry it out, and the reason in words. A pure function of its inputs, so that tests can
/// state the policy case by case without the platform at hand.
/// </summary>
internal static class WritePathChoice
{
    /// <summary>Picks the write path.</summary>
    /// <param name="strategy">The strategy asked for.</param>
    /// <param name="useRestartableSequences">Whether restartable sequences were allowed (the option).</param>
    /// <param name="processorIdSupported">Whether the operating system reports processor ids.</param>
    /// <param name="restartableUnsupportedReason">Why restartable sequences cannot be used here; null where they can.</param>
    /// <returns>The write path and why it was chosen.</returns>
    public static (WritePath Path, string Reason) Choose(PartitionStrategy strategy, bool useRestartableSequences, bool processorIdSupported, string? restartableUnsupportedReason)
    {
        if (strategy == PartitionStrategy.PerThread)
        {
            return (WritePath.PerThread, "PartitionStrategy.PerThread was asked for.");
        }

        if (!processorIdSupported)
        {
            return (WritePath.PerThread, "PartitionStrategy.PerProcessor was asked for, but the operating system reports no processor id (neither sched_getcpu nor GetCurrentProcessorNumberEx), so series are partitioned per thread.");
        }

        if (!useRestartableSequences)
        {
            return (WritePath.InterlockedProcessorId, "MetricRegistryOptions.UseRestartableSequences is false: adds use Interlocked on the cached processor id.");
        }

        if (restartableUnsupportedReason is not null)
        {
            return (WritePath.InterlockedProcessorId, $"Restartable sequences are not available ({restartableUnsupportedReason}): adds use Interlocked on the cached processor id.");
        }

        return (WritePath.RestartableSequence, "Restartable sequences are available and allowed: adds are plain adds to the current processor's region.");
    }
}
