using ScalableMetrics.Platform;

namespace ScalableMetrics.Tests;

/// <summary>The three ways a series can keep its cells, as theory data: each names the registry options that ask for it.</summary>
internal static class Storages
{
    public const string PerProcessorRestartable = "per-processor-restartable";
    public const string PerProcessorInterlocked = "per-processor-interlocked";
    public const string PerThread = "per-thread";

    public static TheoryData<string> All => [PerProcessorRestartable, PerProcessorInterlocked, PerThread];

    public static MetricRegistryOptions Options(string storage) => storage switch
    {
        PerProcessorRestartable => new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = true },
        PerProcessorInterlocked => new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false },
        PerThread => new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread },
        _ => throw new ArgumentOutOfRangeException(nameof(storage), storage, "Not a storage name."),
    };

    /// <summary>The storage a registry created with <see cref="Options"/> uses in this process: a per-processor one falls back where the OS cannot carry it out.</summary>
    public static SeriesStorage Expected(string storage) => storage switch
    {
        PerProcessorRestartable when RestartableSequence.IsSupported && ProcessorId.IsSupported => SeriesStorage.PerProcessorRestartable,
        PerProcessorRestartable or PerProcessorInterlocked when ProcessorId.IsSupported => SeriesStorage.PerProcessorInterlocked,
        _ => SeriesStorage.PerThread,
    };
}
