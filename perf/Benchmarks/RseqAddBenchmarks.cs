// Quick runs on the 2-core VM while it was BUSY (load average 8.5 and 10.4 on 2 cores; other
// builds running): not figures to publish, only a sanity check that the id field costs nothing.
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*RseqAdd*' --job short [--iterationCount 15]
//   .NET 10.0.12, Linux 6.18, glibc 2.36, BenchmarkDotNet v0.14.0
// | Method                                           | run 1 (3 iterations)   | run 2 (15 iterations)  |
// | 'restartable add by cpu_id'                      | 1.22 ns (error 17.3 ns)| 1.59 ns (error 1.07 ns)|
// | 'restartable add by mm_cid'                      | 4.02 ns (error 12.2 ns)| 0.71 ns (error 0.87 ns)|
// | 'RestartableSequence.TryAdd (the core's choice)' | 0.88 ns (error 2.5 ns) | 1.55 ns (error 0.23 ns)|
// The two functions differ only in the id's displacement (fs:rseq+4 against fs:rseq+24, the
// same cache line), and the runs order them both ways: no difference shows through the noise.

using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// What the restartable add costs when the region is picked by <c>cpu_id</c> against
/// <c>mm_cid</c> (the same instructions but the id's displacement), one thread, and the core's
/// own <see cref="RestartableSequence.TryAdd"/> for reference, and its wrapping and double adds;
/// and <c>cpu_id</c> through the dense map of the allowed processors (<see cref="RestartableAddEncoder.EncodeMapped"/>).
/// Linux x86-64 with rseq only; the <c>mm_cid</c> case needs Linux 6.3+.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory("rseq-add")]
public unsafe class RseqAddBenchmarks
{
    private const int Stride = 128;
    private RestartableAddFunction? _byCpuId;
    private RestartableAddFunction? _byMmCid;
    private RestartableAddFunction? _byCpuIdMapped;
    private long* _restarts;
    private long* _regions;
    private long _rseqOffset;

    [GlobalSetup]
    public void Setup()
    {
        string? failure = RseqArea.TryGetOffset(out long offset);
        if (failure is not null || !RseqArea.KernelFillsMmCid)
        {
            throw new PlatformNotSupportedException(failure ?? "the kernel does not fill mm_cid (Linux 6.3+ needed)");
        }

        _rseqOffset = offset;
        _restarts = (long*)NativeMemory.AllocZeroed(sizeof(long));
        // cpu_id as the region needs one for every id up to the highest allowed one.
        int byCpuId = ProcessorSet.Current.Allowed.Count == 0 ? Environment.ProcessorCount : ProcessorSet.Current.Allowed[^1] + 1;
        int regions = byCpuId + 1;
        _regions = (long*)NativeMemory.AlignedAlloc((nuint)(regions * Stride), 128);
        new Span<byte>(_regions, regions * Stride).Clear();
        _byCpuId = RestartableAddFunction.TryCreate(offset, RseqIdField.CpuId, byCpuId, _restarts, out failure)
            ?? throw new InvalidOperationException(failure);
        _byMmCid = RestartableAddFunction.TryCreate(offset, RseqIdField.MmCid, ProcessorSet.Current.Count, _restarts, out failure)
            ?? throw new InvalidOperationException(failure);

        // cpu_id through the dense map of the allowed processors (the path of a cpuset on kernels without mm_cid).
        ushort[] map = new ushort[byCpuId];
        map.AsSpan().Fill(RseqPartitionBounds.NoRegion);
        IReadOnlyList<int> allowed = ProcessorSet.Current.Allowed.Count == 0 ? [.. Enumerable.Range(0, byCpuId)] : ProcessorSet.Current.Allowed;
        for (int i = 0; i < allowed.Count; i++)
        {
            map[allowed[i]] = (ushort)i;
        }

        _byCpuIdMapped = RestartableAddFunction.TryCreate(offset, new RseqRegionPlan(RseqIdField.CpuId, allowed.Count, map, "benchmark"), _restarts, RestartableOperation.SaturatingAdd, out failure)
            ?? throw new InvalidOperationException(failure);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        // This thread ran the adds: disarmed before their descriptors are unmapped (see
        // RestartableAddFunction's remarks).
        RseqArea.DisarmCurrentThread(_rseqOffset);
        _byCpuId?.Dispose();
        _byMmCid?.Dispose();
        _byCpuIdMapped?.Dispose();
        NativeMemory.AlignedFree(_regions);
        NativeMemory.Free(_restarts);
    }

    [Benchmark(Baseline = true, Description = "restartable add by cpu_id")]
    public int ByCpuId() => _byCpuId!.Add(_regions, Stride, 1);

    [Benchmark(Description = "restartable add by mm_cid")]
    public int ByMmCid() => _byMmCid!.Add(_regions, Stride, 1);

    [Benchmark(Description = "restartable add by cpu_id through the map")]
    public int ByCpuIdMapped() => _byCpuIdMapped!.Add(_regions, Stride, 1);

    [Benchmark(Description = "RestartableSequence.TryAdd (the core's choice)")]
    public bool CoreTryAdd() => RestartableSequence.TryAdd(_regions, Stride, 1);

    // The wrapping and the double add, each on a slot of its own in the same regions (slots 1
    // and 2): the same sequence around another body (RestartableOperation).
    [Benchmark(Description = "RestartableSequence.TryAddWrapping")]
    public bool CoreTryAddWrapping() => RestartableSequence.TryAddWrapping(_regions + 1, Stride, -1);

    [Benchmark(Description = "RestartableSequence.TryAddDouble")]
    public bool CoreTryAddDouble() => RestartableSequence.TryAddDouble(_regions + 2, Stride, 0.25);
}
