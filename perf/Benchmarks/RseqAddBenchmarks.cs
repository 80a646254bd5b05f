using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;
using ScalableMetrics.Platform;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// What the restartable add costs when the region is picked by <c>cpu_id</c> against
/// <c>mm_cid</c> (the same instructions but the id's displacement), one thread, and the core's
/// own <see cref="RestartableSequence.TryAdd"/> for reference. Linux x86-64 with rseq only; the
/// <c>mm_cid</c> case needs Linux 6.3+.
/// </summary>
[MemoryDiagnoser]
[BenchmarkCategory("rseq-add")]
public unsafe class RseqAddBenchmarks
{
    private const int Stride = 128;
    private RestartableAddFunction? _byCpuId;
    private RestartableAddFunction? _byMmCid;
    private long* _restarts;
    private long* _regions;

    [GlobalSetup]
    public void Setup()
    {
        string? failure = RseqArea.TryGetOffset(out long offset);
        if (failure is not null || !RseqArea.KernelFillsMmCid)
        {
            throw new PlatformNotSupportedException(failure ?? "the kernel does not fill mm_cid (Linux 6.3+ needed)");
        }

        _restarts = (long*)NativeMemory.AllocZeroed(sizeof(long));
        int regions = RseqPartitionBounds.For(RseqIdField.CpuId) + 1;
        _regions = (long*)NativeMemory.AlignedAlloc((nuint)(regions * Stride), 128);
        new Span<byte>(_regions, regions * Stride).Clear();
        _byCpuId = RestartableAddFunction.TryCreate(offset, RseqIdField.CpuId, RseqPartitionBounds.For(RseqIdField.CpuId), _restarts, out failure)
            ?? throw new InvalidOperationException(failure);
        _byMmCid = RestartableAddFunction.TryCreate(offset, RseqIdField.MmCid, RseqPartitionBounds.For(RseqIdField.MmCid), _restarts, out failure)
            ?? throw new InvalidOperationException(failure);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _byCpuId?.Dispose();
        _byMmCid?.Dispose();
        NativeMemory.AlignedFree(_regions);
        NativeMemory.Free(_restarts);
    }

    [Benchmark(Baseline = true, Description = "restartable add by cpu_id")]
    public int ByCpuId() => _byCpuId!.Add(_regions, Stride, 1);

    [Benchmark(Description = "restartable add by mm_cid")]
    public int ByMmCid() => _byMmCid!.Add(_regions, Stride, 1);

    [Benchmark(Description = "RestartableSequence.TryAdd (the core's choice)")]
    public bool CoreTryAdd() => RestartableSequence.TryAdd(_regions, Stride, 1);
}
