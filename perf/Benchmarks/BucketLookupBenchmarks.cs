// Results (2 logical cores): perf/results/README.md, section "Instruments (issue 10)". Run:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories bucket-lookup --job short
// What it is for: the boundary count from which HistogramBuckets.Find should search binary
// (HistogramBuckets.BinarySearchFromBoundaryCount), read where the ratio falls below 1.

using BenchmarkDotNet.Attributes;
using ScalableMetrics.Instruments.Histograms;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// A histogram's bucket lookup, <c>HistogramBuckets.FindLinear</c> against
/// <c>HistogramBuckets.FindBinary</c>, at 4 to 128 boundaries: where binary search starts to pay.
/// </summary>
/// <remarks>
/// <para>Each invocation looks up <see cref="ValuesPerInvocation"/> values, one lookup per
/// operation. The values fall in every bucket equally often, in a shuffled order (a fixed seed):
/// a linear scan then walks half the boundaries on average, and neither search gets a branch
/// pattern it could learn, as a real stream of latencies would not give one. A workload whose
/// values crowd the first buckets favours the linear scan more than this.</para>
/// <para>Boundary i is i (0, 1, 2, ...), and the value for bucket j is j - 0.5: strictly inside it,
/// so no lookup is an exact match of a boundary.</para>
/// </remarks>
[MemoryDiagnoser]
[BenchmarkCategory("bucket-lookup")]
public class BucketLookupBenchmarks
{
    private const int ValuesPerInvocation = 1024;

    private HistogramBuckets _buckets = null!;
    private double[] _values = [];

    [Params(4, 8, 16, 32, 64, 128)]
    public int Boundaries { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _buckets = HistogramBuckets.Create([.. Enumerable.Range(0, Boundaries).Select(i => (double)i)], "boundaries");
        var random = new Random(42);
        _values = [.. Enumerable.Range(0, ValuesPerInvocation).Select(i => (i % (Boundaries + 1)) - 0.5)];
        random.Shuffle(_values);

        // Both searches must agree, or the comparison means nothing.
        foreach (double value in _values)
        {
            if (_buckets.FindLinear(value) != _buckets.FindBinary(value))
            {
                throw new InvalidOperationException($"FindLinear and FindBinary disagree on {value} with {Boundaries} boundaries.");
            }
        }
    }

    [Benchmark(Baseline = true, Description = "FindLinear", OperationsPerInvoke = ValuesPerInvocation)]
    public int Linear()
    {
        int buckets = 0;
        foreach (double value in _values)
        {
            buckets += _buckets.FindLinear(value);
        }

        return buckets;
    }

    [Benchmark(Description = "FindBinary", OperationsPerInvoke = ValuesPerInvocation)]
    public int Binary()
    {
        int buckets = 0;
        foreach (double value in _values)
        {
            buckets += _buckets.FindBinary(value);
        }

        return buckets;
    }
}
