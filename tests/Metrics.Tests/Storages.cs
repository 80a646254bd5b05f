using ScalableMetrics.Platform;

namespace ScalableMetrics.Tests;

/// <summary>The three write paths, as theory data: each names the registry options that ask for it. Where the process cannot carry one out, the registry falls back (its <see cref="MetricRegistry.WritePath"/> says which), and the test runs on that.</summary>
internal static class Storages
{
    public const string PerProcessorRestartable = "per-processor-restartable";
    public const string PerProcessorInterlocked = "per-processor-interlocked";
    public const string PerThread = "per-thread";

    public static TheoryData<string> All => [PerProcessorRestartable, PerProcessorInterlocked, PerThread];

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
}
