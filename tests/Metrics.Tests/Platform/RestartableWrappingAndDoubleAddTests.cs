using System.Diagnostics;
using System.Numerics;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using ScalableMetrics.Cells;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;
using Xunit.Abstractions;
using ScalableMetrics.Platform.Rseq;
using ScalableMetrics.Tests.Cells;

namespace ScalableMetrics.Tests.Platform;

/// <summary>The process's restartable wrapping and double adds: made where the saturating add is, what they do, when they refuse, and their restarts.</summary>
[Collection(ProcessWideStateCollection.Name)]
public unsafe class RestartableWrappingAndDoubleAddTests(ITestOutputHelper output)
{
    [Fact]
    public void BothAreMadeWhereverTheSaturatingAddIs()
    {
        if (!RestartableSequence.IsSupported)
        {
            Assert.Equal(0, RestartableSequence.WrappingEntryAddress);
            Assert.Equal(0, RestartableSequence.DoubleEntryAddress);
            Assert.Equal(RestartableSequence.UnsupportedReason, RestartableSequence.WrappingAddUnavailableReason);
            Assert.Equal(RestartableSequence.UnsupportedReason, RestartableSequence.DoubleAddUnavailableReason);
            return;
        }

        Assert.Null(RestartableSequence.WrappingAddUnavailableReason);
        Assert.Null(RestartableSequence.DoubleAddUnavailableReason);
        nint[] entries = [RestartableSequence.EntryAddress, RestartableSequence.WrappingEntryAddress, RestartableSequence.DoubleEntryAddress];
        Assert.DoesNotContain(0, entries);
        Assert.Equal(3, entries.Distinct().Count());
        Assert.All(entries, entry => Assert.Equal("r-xp", ExecutableMemoryTests.MappingPermissions(entry)));
    }

    [RseqFact]
    public void TheWrappingAddWrapsInOneRegionOnly()
    {
        int regions = RestartableSequence.PartitionCount;
        long[] slots = GC.AllocateArray<long>(regions, pinned: true);
        slots.AsSpan().Fill(long.MaxValue - 1);
        fixed (long* first = slots)
        {
            Assert.True(WrappingCell.TryAddRestartable(first, sizeof(long), 5));
        }

        Assert.Single(slots, value => value == long.MinValue + 3);
        Assert.Equal(regions - 1, slots.Count(value => value == long.MaxValue - 1));

        slots.AsSpan().Clear();
        fixed (long* first = slots)
        {
            Assert.True(WrappingCell.TryAddRestartable(first, sizeof(long), -7));
        }

        Assert.Equal(-7, slots.Sum());
        Assert.Single(slots, value => value == -7);
    }

    [RseqFact]
    public void TheDoubleAddAddsExactlyInOneRegionOnly()
    {
        int regions = RestartableSequence.PartitionCount;
        double[] slots = GC.AllocateArray<double>(regions, pinned: true);
        slots.AsSpan().Fill(0.5);
        fixed (double* first = slots)
        {
            Assert.True(DoubleCell.TryAddRestartable((long*)first, sizeof(double), 0.25));
        }

        Assert.Single(slots, value => value == 0.75);
        Assert.Equal(regions - 1, slots.Count(value => value == 0.5));

        slots.AsSpan().Fill(0.5);
        fixed (double* first = slots)
        {
            Assert.True(DoubleCell.TryAddRestartable((long*)first, sizeof(double), -1.25));
        }

        Assert.Single(slots, value => value == -0.75);
    }

    [RseqFact]
    public void SeriesAddsLandInTheProcessorsRegionsNotTheOverflowRegion()
    {
        // Every id the process's threads report is below the partition count, so the overflow
        // region (the chunk's last) takes nothing: the adds went through the native functions.
        var registry = new MetricRegistry(Storages.Options(Storages.PerProcessorRestartable));
        Assert.Equal(WritePath.RestartableSequence, registry.WritePath);
        var series = new SlotKindsSeries(registry);
        ConcurrentWriters.Run(4, index =>
        {
            for (int i = 0; i < 10_000; i++)
            {
                series.AddWrapping(index % 2 == 0 ? 2 : -1);
                series.AddDouble(0.5);
                series.AddCountAndDouble(0.25);
            }
        });

        ArenaChunk chunk = series.Slots.Chunk;
        int overflow = chunk.RegionCount - 1;
        Assert.Equal(0, *chunk.SlotAddress(overflow, series.Slots.FirstSlot + SlotKindsSeries.WrappingSlot));
        Assert.Equal(0, *chunk.SlotAddress(overflow, series.Slots.FirstSlot + SlotKindsSeries.DoubleSlot));
        Assert.Equal(20_000, series.ReadWrapping());
        Assert.Equal((4 * 10_000 * 0.5) + (4 * 10_000 * 0.25), series.ReadDouble());
        Assert.Equal(40_000, series.ReadCount());
    }

    [RseqTwoProcessorsFact]
    [SupportedOSPlatform("linux")]
    public void AnAddFromAnIdPastThePartitionCountIsRefusedWithNothingAdded()
    {
        // Functions indexed by cpu_id with the regions of processors 0 to low only, made on a
        // thread pinned to processor low (their self-tests add there); then a thread pinned to a
        // higher processor calls them: each must return 0 and leave every slot as it was.
        ulong allowed = (ulong)(long)Process.GetCurrentProcess().ProcessorAffinity;
        int low = BitOperations.TrailingZeroCount(allowed);
        int high = 63 - BitOperations.LeadingZeroCount(allowed);
        Assert.NotEqual(low, high);
        Assert.Null(RseqArea.TryGetOffset(out long rseqOffset));
        long* restarts = (long*)NativeMemory.AllocZeroed(sizeof(long));
        var functions = new List<RestartableAddFunction>();
        int length = high + 2;
        long[] slots = GC.AllocateArray<long>(length, pinned: true);
        try
        {
            OnProcessor(low, () =>
            {
                foreach (RestartableOperation operation in Enum.GetValues<RestartableOperation>())
                {
                    functions.Add(RestartableAddFunction.TryCreate(rseqOffset, RseqIdField.CpuId, low + 1, restarts, operation, out string? failure)
                        ?? throw new InvalidOperationException(failure));
                }
            });

            OnProcessor(high, () =>
            {
                foreach (RestartableAddFunction function in functions)
                {
                    slots.AsSpan().Fill(1L << 40);
                    fixed (long* first = slots)
                    {
                        int added = function.Operation == RestartableOperation.DoubleAdd
                            ? function.AddDouble(first, sizeof(long), 1.0)
                            : function.Add(first, sizeof(long), 1);
                        Assert.Equal(0, added);
                    }

                    Assert.All(slots, value => Assert.Equal(1L << 40, value));
                }
            });

            // The same functions add on processor low: the refusal was the id's, not the function's.
            OnProcessor(low, () =>
            {
                foreach (RestartableAddFunction function in functions)
                {
                    slots.AsSpan().Clear();
                    fixed (long* first = slots)
                    {
                        int added = function.Operation == RestartableOperation.DoubleAdd
                            ? function.AddDouble(first, sizeof(long), 1.0)
                            : function.Add(first, sizeof(long), 1);
                        Assert.Equal(1, added);
                    }

                    Assert.Equal(function.Operation == RestartableOperation.DoubleAdd ? BitConverter.DoubleToInt64Bits(1.0) : 1, slots[low]);
                }
            });
        }
        finally
        {
            functions.ForEach(function => function.Dispose());
            NativeMemory.Free(restarts);
        }

        // The thread disarms before it ends: Join returns while it may still be preempted in its
        // exit, when the kernel would read a descriptor the finally block below has unmapped.
        void OnProcessor(int processor, Action action)
        {
            Exception? failure = null;
            var thread = new Thread(() =>
            {
                try
                {
                    ThreadPinning.Pin(processor);
                    action();
                }
                catch (Exception e)
                {
                    failure = e;
                }
                finally
                {
                    RseqArea.DisarmCurrentThread(rseqOffset);
                }
            });
            thread.Start();
            thread.Join();
            Assert.Null(failure);
        }
    }

    [RseqFact]
    [SupportedOSPlatform("linux")]
    public void SignalledWrappingAndDoubleWritersRestartAndEveryAddLandsExactlyOnce()
    {
        var registry = new MetricRegistry(Storages.Options(Storages.PerProcessorRestartable));
        var series = new SlotKindsSeries(registry);
        Assert.Equal(WritePath.RestartableSequence, series.WritePath);
        const int RoundsPerBatch = 5_000;

        // Only wrapping and double adds, so that every restart counted is one of theirs. Each round
        // adds +5 and -2 (wrapping) and 0.75 and -0.25 (double, exact in any order).
        (int threads, long batches, long signals, long restarts, TimeSpan elapsed) = SignalledWriters.Run(
            () =>
            {
                for (int i = 0; i < RoundsPerBatch; i++)
                {
                    series.AddWrapping(5);
                    series.AddDouble(0.75);
                    series.AddWrapping(-2);
                    series.AddDouble(-0.25);
                }
            },
            () => series.ReadWrapping());

        long total = batches * RoundsPerBatch;
        Assert.Equal(3 * total, series.ReadWrapping());
        Assert.Equal(0.5 * total, series.ReadDouble());
        output.WriteLine($"{threads} threads, {total} rounds in {elapsed.TotalSeconds:F1} s; signals sent: {signals}; restarts: {restarts}");
        Assert.True(restarts > 0, $"no add was restarted in {signals} signals, so the restart path went untested");
    }
}
