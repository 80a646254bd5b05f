using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Tests;

/// <summary>
/// The three write paths, as theory data: each names the registry options that ask for it. A
/// theory over them is a <see cref="StorageTheoryAttribute"/>, which skips, with the registry's
/// reason, a row whose write path the process cannot carry out (the registry would fall back to
/// another, and the row would test that one under the wrong name).
/// </summary>
internal static class Storages
{
    public const string PerProcessorRestartable = "per-processor-restartable";
    public const string PerProcessorInterlocked = "per-processor-interlocked";
    public const string PerThread = "per-thread";

    public static TheoryData<string> All => [PerProcessorRestartable, PerProcessorInterlocked, PerThread];

    /// <summary>The two per-processor storages.</summary>
    public static TheoryData<string> PerProcessor => [PerProcessorRestartable, PerProcessorInterlocked];

    /// <summary>Every storage, each through a bound series (true) and through the instrument (false).</summary>
    public static TheoryData<string, bool> AllBoundAndUnbound
    {
        get
        {
            var data = new TheoryData<string, bool>();
            foreach (string storage in (IEnumerable<string>)[PerProcessorRestartable, PerProcessorInterlocked, PerThread])
            {
                data.Add(storage, true);
                data.Add(storage, false);
            }

            return data;
        }
    }

    public static MetricRegistryOptions Options(string storage) => storage switch
    {
        PerProcessorRestartable => new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = true },
        PerProcessorInterlocked => new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false },
        PerThread => new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread },
        _ => throw new ArgumentOutOfRangeException(nameof(storage), storage, "Not a storage name."),
    };

    /// <summary>The write path a storage names.</summary>
    public static WritePath PathOf(string storage) => storage switch
    {
        PerProcessorRestartable => WritePath.RestartableSequence,
        PerProcessorInterlocked => WritePath.InterlockedProcessorId,
        PerThread => WritePath.PerThread,
        _ => throw new ArgumentOutOfRangeException(nameof(storage), storage, "Not a storage name."),
    };

    /// <summary>Why a registry asked for <paramref name="storage"/> uses another write path here; null where it uses the one named.</summary>
    public static string? UnsupportedReason(string storage)
    {
        var registry = new MetricRegistry(Options(storage));
        return registry.WritePath == PathOf(storage)
            ? null
            : $"{storage} asks for {PathOf(storage)}, which this process cannot carry out (the registry would use {registry.WritePath}): {registry.WritePathReason}";
    }
}
