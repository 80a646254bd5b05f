using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Tests;

/// <summary>
/// The three write paths, each with every series per partition from creation and with series
/// that start compact and are promoted when contended (<see cref="SeriesStorage.Adaptive"/>), and
/// series that stay compact, as theory data: each names the registry options that ask for it. A
/// theory over them is a <see cref="StorageTheoryAttribute"/>, which skips, with the registry's
/// reason, a row whose write path the process cannot carry out (the registry would fall back to
/// another, and the row would test that one under the wrong name).
/// </summary>
internal static class Storages
{
    public const string PerProcessorRestartable = "per-processor-restartable";
    public const string PerProcessorInterlocked = "per-processor-interlocked";
    public const string PerThread = "per-thread";
    public const string AdaptiveRestartable = "adaptive-restartable";
    public const string AdaptiveInterlocked = "adaptive-interlocked";
    public const string AdaptivePerThread = "adaptive-per-thread";
    public const string Compact = "compact";

    private static readonly string[] s_names = [PerProcessorRestartable, PerProcessorInterlocked, PerThread, AdaptiveRestartable, AdaptiveInterlocked, AdaptivePerThread, Compact];

    /// <summary>Every storage: the three write paths per partition, the three adaptive, and compact.</summary>
    public static TheoryData<string> All => [.. s_names];

    /// <summary>The three write paths with every series per partition from creation: for what tests the partitions' layout.</summary>
    public static TheoryData<string> WritePaths => [PerProcessorRestartable, PerProcessorInterlocked, PerThread];

    /// <summary>The two per-processor storages, per partition from creation.</summary>
    public static TheoryData<string> PerProcessor => [PerProcessorRestartable, PerProcessorInterlocked];

    /// <summary>The three adaptive storages: series start compact and are promoted when contended.</summary>
    public static TheoryData<string> Adaptive => [AdaptiveRestartable, AdaptiveInterlocked, AdaptivePerThread];

    /// <summary>Every storage, each through a bound series (true) and through the instrument (false).</summary>
    public static TheoryData<string, bool> AllBoundAndUnbound
    {
        get
        {
            var data = new TheoryData<string, bool>();
            foreach (string storage in s_names)
            {
                data.Add(storage, true);
                data.Add(storage, false);
            }

            return data;
        }
    }

    public static MetricRegistryOptions Options(string storage) => storage switch
    {
        PerProcessorRestartable => new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = true, SeriesStorage = SeriesStorage.PerPartition },
        PerProcessorInterlocked => new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false, SeriesStorage = SeriesStorage.PerPartition },
        PerThread => new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread, SeriesStorage = SeriesStorage.PerPartition },
        AdaptiveRestartable => new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = true, SeriesStorage = SeriesStorage.Adaptive },
        AdaptiveInterlocked => new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false, SeriesStorage = SeriesStorage.Adaptive },
        AdaptivePerThread => new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread, SeriesStorage = SeriesStorage.Adaptive },
        Compact => new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false, SeriesStorage = SeriesStorage.Compact },
        _ => throw new ArgumentOutOfRangeException(nameof(storage), storage, "Not a storage name."),
    };

    /// <summary>The write path a storage names (for compact, the one its registry reports; its series never take it).</summary>
    public static WritePath PathOf(string storage) => storage switch
    {
        PerProcessorRestartable or AdaptiveRestartable => WritePath.RestartableSequence,
        PerProcessorInterlocked or AdaptiveInterlocked or Compact => WritePath.InterlockedProcessorId,
        PerThread or AdaptivePerThread => WritePath.PerThread,
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
