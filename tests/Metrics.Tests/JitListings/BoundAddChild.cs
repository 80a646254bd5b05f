using System.Runtime.CompilerServices;
using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Tests.JitListings;

/// <summary>
/// The child process of <see cref="BoundAddListingTests"/>: a registry on one write path, a bound
/// counter and a bound histogram, and one call of each listed method, made after the registry and
/// its series exist, so that the JIT compiles each add with every class constructor and thread
/// static it reads already in place, as a warm process has them.
/// </summary>
internal static class BoundAddChild
{
    /// <summary>The verb that makes <see cref="Program.Main"/> run this child.</summary>
    public const string Verb = "bound-add-listing";

    /// <summary>The methods listed, as <c>DOTNET_JitDisasm</c> names them (the child calls only these overloads).</summary>
    public const string Methods = "ScalableMetrics.CounterSeries`1[long]:Add ScalableMetrics.CounterSeries:Increment ScalableMetrics.HistogramSeries:Record";

    /// <summary>The options that ask for <paramref name="writePath"/>.</summary>
    public static MetricRegistryOptions Options(WritePath writePath) => writePath switch
    {
        WritePath.RestartableSequence => new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = true },
        WritePath.InterlockedProcessorId => new MetricRegistryOptions { Strategy = PartitionStrategy.PerProcessor, UseRestartableSequences = false },
        _ => new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread },
    };

    /// <returns>0; 2 where the registry took another write path than <paramref name="writePathName"/> (the listing would be of the wrong process).</returns>
    public static int Run(string writePathName)
    {
        WritePath writePath = Enum.Parse<WritePath>(writePathName);
        var registry = new MetricRegistry(Options(writePath));
        if (registry.WritePath != writePath)
        {
            Console.Error.WriteLine($"Asked for {writePath}, the registry took {registry.WritePath}: {registry.WritePathReason}");
            return 2;
        }

        Call(registry.CreateCounter("listing.counter").Bind(), registry.CreateHistogram("listing.histogram").Bind());
        return 0;
    }

    // Not optimized, so that it inlines nothing: each add is compiled as a method of its own, the
    // code that every caller the JIT does not inline it into runs (and what it inlines otherwise).
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.NoOptimization)]
    private static void Call(CounterSeries counter, HistogramSeries histogram)
    {
        counter.Add(2);
        counter.Increment();
        histogram.Record(1.5);
    }
}
