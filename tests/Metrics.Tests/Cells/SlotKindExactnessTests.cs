using ScalableMetrics.Cells;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform.Rseq;
using ScalableMetrics.Tests.Platform;

namespace ScalableMetrics.Tests.Cells;

/// <summary>
/// Wrapping adds (up-down counters) and double adds (double counters, histogram sums) on every
/// write path, under concurrent writers and reads: every value lands exactly once.
/// </summary>
public unsafe class SlotKindExactnessTests
{
    private const int AddsPerThread = 100_000;

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void WrappingAddsOfBothSignsSumExactlyWhileReadsRun(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        var series = new SlotKindsSeries(registry);
        Assert.Equal(registry.WritePath, series.WritePath);
        int threads = Math.Max(4, Environment.ProcessorCount * 2);
        int reads = 0;

        // Even writers add +3, odd ones -5, so that partitions hold values of opposite signs and
        // the total crosses zero while they run.
        ConcurrentWriters.Run(
            threads,
            index =>
            {
                long value = index % 2 == 0 ? 3 : -5;
                for (int i = 0; i < AddsPerThread; i++)
                {
                    series.AddWrapping(value);
                }
            },
            whileRunning: () =>
            {
                series.ReadWrapping();
                SlotKindsSeries.ReadAll(registry, [series], SlotSum.Wrapping);
                reads++;
            });

        long expected = (long)AddsPerThread * ((3 * ((threads + 1) / 2)) - (5 * (threads / 2)));
        Assert.True(reads > 0);
        Assert.Equal(expected, series.ReadWrapping());
        Assert.Equal(expected, SlotKindsSeries.ReadAll(registry, [series], SlotSum.Wrapping)[SlotKindsSeries.WrappingSlot]);
    }

    [PinningStorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void AThreadThatAddsAndThenSubtractsOnAnotherProcessorReadsExactlyZero(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        var series = new SlotKindsSeries(registry);
        int threads = Math.Max(4, Environment.ProcessorCount * 2);
        (int first, int second) = (ThreadPinning.AllowedProcessors[0], ThreadPinning.AllowedProcessors[1]);

        // Every writer adds +7 n times pinned to one processor, then -7 n times pinned to another
        // (Pin fails unless the processor id the thread reports changes): where regions are
        // picked by processor, one holds +7kn and another -7kn. A total that is not exactly 0
        // lost an add.
        ConcurrentWriters.Run(threads, _ =>
        {
            ThreadPinning.Pin(first);
            for (int i = 0; i < AddsPerThread; i++)
            {
                series.AddWrapping(7);
            }

            ThreadPinning.Pin(second);
            for (int i = 0; i < AddsPerThread; i++)
            {
                series.AddWrapping(-7);
            }
        });

        Assert.Equal(0, series.ReadWrapping());
        Assert.Equal(0, SlotKindsSeries.ReadAll(registry, [series], SlotSum.Wrapping)[SlotKindsSeries.WrappingSlot]);

        // Where the region is the processor's (Interlocked, and restartable by cpu_id; not per
        // thread, nor by mm_cid, which need not change with the processor), the subtractions
        // really went to another region than the adds; for series per partition from creation (a
        // compact series' adds, and an adaptive one's before promotion, are in its compact slots).
        if (!series.HasCompactSlots && (registry.WritePath == WritePath.InterlockedProcessorId || (registry.WritePath == WritePath.RestartableSequence && RestartableSequence.IdField == RseqIdField.CpuId)))
        {
            SlotRange slots = series.Slots;
            long[] regions = [.. Enumerable.Range(0, slots.Chunk.RegionCount).Select(region => *slots.Chunk.SlotAddress(region, slots.FirstSlot + SlotKindsSeries.WrappingSlot))];
            Assert.Contains(regions, value => value > 0);
            Assert.Contains(regions, value => value < 0);
        }
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void WrappingSlotsSumExactlyWhenAPartitionPassesLongMaxValue(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        var series = new SlotKindsSeries(registry);

        // Past long.MaxValue the partition wraps; the later subtraction brings the total back.
        series.AddWrapping(long.MaxValue);
        series.AddWrapping(10);
        Assert.Equal(long.MinValue + 9, series.ReadWrapping());
        series.AddWrapping(-20);
        Assert.Equal(long.MaxValue - 10, series.ReadWrapping());
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void DoubleAddsOfBothSignsSumExactlyWhileReadsRun(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        var series = new SlotKindsSeries(registry);
        int threads = Math.Max(4, Environment.ProcessorCount * 2);
        int reads = 0;

        // Multiples of 0.25, far below 2^50: every partial sum in any partition is exact, so the
        // total compares exactly.
        ConcurrentWriters.Run(
            threads,
            index =>
            {
                double value = index % 2 == 0 ? 0.75 : -0.25;
                for (int i = 0; i < AddsPerThread; i++)
                {
                    series.AddDouble(value);
                }
            },
            whileRunning: () =>
            {
                series.ReadDouble();
                SlotKindsSeries.ReadAll(registry, [series], SlotSum.Double);
                reads++;
            });

        double expected = AddsPerThread * ((0.75 * ((threads + 1) / 2)) - (0.25 * (threads / 2)));
        Assert.True(reads > 0);
        Assert.Equal(expected, series.ReadDouble());
        Assert.Equal(expected, BitConverter.Int64BitsToDouble(SlotKindsSeries.ReadAll(registry, [series], SlotSum.Double)[SlotKindsSeries.DoubleSlot]));
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void CountsAndDoubleSumsOfAHistogramLandExactlyOnce(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        var series = new SlotKindsSeries(registry);
        int threads = Math.Max(4, Environment.ProcessorCount * 2);

        ConcurrentWriters.Run(
            threads,
            index =>
            {
                for (int i = 0; i < AddsPerThread; i++)
                {
                    series.AddCountAndDouble(index % 2 == 0 ? 1.5 : -0.5);
                }
            },
            whileRunning: () => series.ReadCount());

        Assert.Equal((long)threads * AddsPerThread, series.ReadCount());
        Assert.Equal(AddsPerThread * ((1.5 * ((threads + 1) / 2)) - (0.5 * (threads / 2))), series.ReadDouble());
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void ReadsConcurrentWithDoubleAddsNeverSeeATornDouble(string storage)
    {
        // Each region's double slot starts at 2^21, and writers add 1.0: every value a region
        // holds is then an integer in [2^21, 2^22), whose lowest bit is bit 31 of the double, so
        // that consecutive values differ in both 32-bit halves every second add. A read that took
        // one half of the old value and one of the new would read n - 1 or n + 2 for n, n + 1:
        // seen as a region going down between reads.
        const double Start = 1 << 21;
        var registry = new MetricRegistry(Storages.Options(storage));
        var series = new SlotKindsSeries(registry);
        ArenaChunk chunk = series.Slots.Chunk.FirstGeneration;
        int slot = series.Slots.FirstSlot + SlotKindsSeries.DoubleSlot;
        for (int region = 0; region < chunk.RegionCount; region++)
        {
            *(double*)chunk.SlotAddress(region, slot) = Start;
        }

        int threads = 4;
        const int Adds = 200_000;
        double[] seen = new double[chunk.RegionCount];
        seen.AsSpan().Fill(Start);
        double lastTotal = 0;
        string? failure = null;

        ConcurrentWriters.Run(
            threads,
            _ =>
            {
                for (int i = 0; i < Adds; i++)
                {
                    series.AddDouble(1.0);
                }
            },
            whileRunning: () =>
            {
                for (int region = 0; region < chunk.RegionCount; region++)
                {
                    double value = DoubleCell.Read(chunk.SlotAddress(region, slot));
                    if (value < seen[region] || value >= 2 * Start || value != Math.Floor(value))
                    {
                        failure ??= $"region {region} read {value} after {seen[region]}";
                    }

                    seen[region] = value;
                }

                double total = series.ReadDouble();
                if (total < lastTotal || total != Math.Floor(total))
                {
                    failure ??= $"the total read {total} after {lastTotal}";
                }

                lastTotal = total;
            });

        Assert.Null(failure);
        Assert.Equal((chunk.RegionCount * Start) + ((double)threads * Adds), series.ReadDouble());
    }
}
