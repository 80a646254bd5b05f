using System.Diagnostics;
using System.Numerics;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;
using Xunit.Abstractions;
using ScalableMetrics.Platform.Interop;
using ScalableMetrics.Platform.Rseq;
using ScalableMetrics.Tests.Diagnostics;

namespace ScalableMetrics.Tests.Platform;

[Collection(ProcessWideStateCollection.Name)]
public unsafe class RestartableSequenceTests(ITestOutputHelper output)
{
    // struct rseq's mm_cid and cpu_id, from the kernel's include/uapi/linux/rseq.h, written out
    // here rather than taken from RseqAbi so that the tests read the area independently.
    private const int CpuIdOffsetInArea = 4;
    private const int MmCidOffsetInArea = 24;

    [Fact]
    public void SupportedWhereGlibcRegisteredAnRseqAreaOnLinuxX64()
    {
        // Asked apart from the code under test, which reads glibc's __rseq_offset and __rseq_size:
        // glibc 2.35+ registers an area for every thread unless a tunable says not to, and the
        // kernel itself says whether a new thread holds one.
        bool switchSet = AppContext.TryGetSwitch(RestartableSequence.DisableSwitchName, out bool disabled) && disabled;
        Version? glibc = null;
        bool glibcRegisters = false;
        string kernel = "not asked off Linux x86-64";
        if (OperatingSystem.IsLinux() && RuntimeInformation.ProcessArchitecture == Architecture.X64)
        {
            glibc = KernelRseq.GlibcVersion();
            glibcRegisters = glibc >= new Version(2, 35) && !KernelRseq.GlibcTunableTurnsRseqOff();
            kernel = KernelRseq.NewThreadRegistration();
        }

        bool expected = !switchSet && glibcRegisters && kernel == KernelRseq.Registered;
        output.WriteLine($"glibc {glibc?.ToString() ?? "none"}, registers: {glibcRegisters}; kernel: {kernel}; switch {RestartableSequence.DisableSwitchName}: {switchSet}");

        Assert.True(expected == RestartableSequence.IsSupported, $"expected IsSupported={expected} (glibc {glibc?.ToString() ?? "none"}, kernel: {kernel}, switch set: {switchSet}); reason given: {RestartableSequence.UnsupportedReason ?? "none"}");
        Assert.Equal(RestartableSequence.IsSupported, RestartableSequence.UnsupportedReason is null);
        if (switchSet)
        {
            Assert.Contains(RestartableSequence.DisableSwitchName, RestartableSequence.UnsupportedReason);
        }

        if (RestartableSequence.IsSupported && OperatingSystem.IsLinux())
        {
            // The area the code found is the one the kernel keeps: its cpu_id is the processor
            // this thread runs on, as procfs reports it (read again where the thread moved between).
            int* cpuId = (int*)(Libc.PThreadSelf() + *(nint*)Libc.GetDataExport("__rseq_offset") + CpuIdOffsetInArea);
            for (int attempt = 0; ; attempt++)
            {
                int before = Procfs.CurrentProcessor();
                int fromArea = Volatile.Read(ref *cpuId);
                int after = Procfs.CurrentProcessor();
                if (before == after || attempt == 100)
                {
                    Assert.Equal(before, fromArea);
                    break;
                }
            }
        }
    }

    [Fact]
    public void PartitionCountIsOneUnlessTheSelfTestPassed()
    {
        if (!RestartableSequence.IsSupported)
        {
            Assert.Equal(1, RestartableSequence.PartitionCount);
            Assert.Equal(0, RestartableSequence.EntryAddress);
        }
        else
        {
            Assert.NotEqual(0, RestartableSequence.EntryAddress);
            Assert.InRange(RestartableSequence.PartitionCount, 1, 8192);
        }
    }

    [RseqFact]
    [SupportedOSPlatform("linux")]
    public void PartitionCountCoversEveryIdAThreadOfTheProcessCanReport()
    {
        // Read independently of the code under test: the process's affinity through the runtime
        // (the first 64 processors), and the kernel's list of possible processors, which no longer
        // decides anything: a region for each processor the process may run on, on either id field.
        string possible = File.ReadAllText("/sys/devices/system/cpu/possible").Trim();
        ulong mask = (ulong)(long)Process.GetCurrentProcess().ProcessorAffinity;
        int allowed = BitOperations.PopCount(mask);
        output.WriteLine($"possible {possible}, allowed {allowed} processors; id field {RestartableSequence.IdField}, {RestartableSequence.PartitionCount} partitions; {RestartableSequence.Plan?.Reason}");
        if (Environment.ProcessorCount <= 64)
        {
            Assert.Equal(allowed, RestartableSequence.PartitionCount);
        }

        // cpu_id without a map only where the allowed processors are 0 to k - 1.
        if (RestartableSequence.IdField == RseqIdField.CpuId && RestartableSequence.Plan!.RegionOfId is null && Environment.ProcessorCount <= 64)
        {
            Assert.Equal(allowed == 64 ? ulong.MaxValue : (1UL << allowed) - 1, mask);
        }
    }

    [RseqFact]
    [SupportedOSPlatform("linux")]
    public void AnAddFromAThreadPinnedToProcessorPLandsInItsRegion()
    {
        long rseqOffset = *(nint*)Libc.GetDataExport("__rseq_offset");
        ulong allowed = (ulong)(long)Process.GetCurrentProcess().ProcessorAffinity;
        int regions = RestartableSequence.PartitionCount + 1;
        const int Stride = 64;
        long* slots = (long*)NativeMemory.AllocZeroed((nuint)(regions * Stride));
        try
        {
            for (int processor = 0; processor < 64; processor++)
            {
                if ((allowed & (1UL << processor)) == 0)
                {
                    continue;
                }

                Exception? failure = null;
                var thread = new Thread(() =>
                {
                    try
                    {
                        AddOnProcessor(processor);
                    }
                    catch (Exception e)
                    {
                        failure = e;
                    }
                });
                thread.Start();
                thread.Join();
                Assert.Null(failure);
            }
        }
        finally
        {
            NativeMemory.Free(slots);
        }

        void AddOnProcessor(int processor)
        {
            ThreadPinning.Pin(processor);
            for (int attempt = 0; ; attempt++)
            {
                new Span<long>(slots, regions * Stride / sizeof(long)).Clear();

                // The id the kernel wrote in this thread's area, read at pthread_self()
                // + __rseq_offset (glibc x86-64: the thread pointer), before and after.
                int idOffset = RestartableSequence.IdField == RseqIdField.MmCid ? MmCidOffsetInArea : CpuIdOffsetInArea;
                int* id = (int*)(Libc.PThreadSelf() + (nint)rseqOffset + idOffset);
                int before = Volatile.Read(ref *id);
                bool added = RestartableSequence.TryAdd(slots, Stride, processor + 1);
                int after = Volatile.Read(ref *id);
                if (before != after && attempt < 100)
                {
                    continue;
                }

                int expectedRegion = RestartableSequence.IdField == RseqIdField.CpuId ? RestartableSequence.Plan!.RegionOf(processor) : before;
                if (RestartableSequence.IdField == RseqIdField.CpuId)
                {
                    Assert.Equal(processor, before);
                }

                Assert.True(added, $"refused on processor {processor} ({RestartableSequence.IdField} {before})");
                for (int region = 0; region < regions; region++)
                {
                    Assert.Equal(region == expectedRegion ? processor + 1 : 0, slots[region * Stride / sizeof(long)]);
                }

                output.WriteLine($"pinned to processor {processor}: {RestartableSequence.IdField} {before}, landed in region {expectedRegion}");
                return;
            }
        }
    }

    [RseqFact]
    public void TheAddSaturatesAtLongMaxValue()
    {
        int regions = RestartableSequence.PartitionCount;
        long[] slots = GC.AllocateArray<long>(regions, pinned: true);
        slots.AsSpan().Fill(long.MaxValue - 1);
        fixed (long* first = slots)
        {
            Assert.True(RestartableSequence.TryAdd(first, sizeof(long), 5));
        }

        Assert.Single(slots, value => value == long.MaxValue);
        Assert.Equal(regions - 1, slots.Count(value => value == long.MaxValue - 1));
    }

    [RseqFact]
    [SupportedOSPlatform("linux")]
    public void SignalledWritersRestartAndEveryAddLandsExactlyOnce()
    {
        var registry = new MetricRegistry(Storages.Options(Storages.PerProcessorRestartable));
        CounterSeries series = registry.CreateCounter("test.restarts").Bind();
        Assert.Equal(WritePath.RestartableSequence, series.WritePath);
        const int AddsPerBatch = 10_000;

        (int threads, long batches, long signals, long restarts, TimeSpan elapsed) = SignalledWriters.Run(
            () =>
            {
                for (int i = 0; i < AddsPerBatch; i++)
                {
                    series.Add(3);
                }
            },
            () => series.Read());

        long adds = batches * AddsPerBatch;
        Assert.Equal(3 * adds, series.Read());
        output.WriteLine($"{threads} threads, {adds} adds in {elapsed.TotalSeconds:F1} s; signals sent: {signals}; restarts: {restarts}");
        Assert.True(restarts > 0, $"no add was restarted in {signals} signals, so the restart path went untested");
    }

    [Fact]
    public void RegistryUsesRestartableSequencesOnlyWhenAskedAndSupported()
    {
        // What was asked, every way, against the policy table's row for what this process
        // supports (IsSupported is checked against glibc and the kernel above).
        foreach (PartitionStrategy strategy in Enum.GetValues<PartitionStrategy>())
        {
            foreach (bool useRestartable in (bool[])[true, false])
            {
                var options = new MetricRegistryOptions { Strategy = strategy, UseRestartableSequences = useRestartable };
                Assert.Equal(WritePathPolicy.ForThisProcess(options), new MetricRegistry(options).WritePath);
            }
        }

        Assert.Equal(WritePathPolicy.ForThisProcess(new MetricRegistryOptions()), new MetricRegistry().WritePath);
        Assert.NotEqual(WritePath.RestartableSequence, new MetricRegistry(Storages.Options(Storages.PerProcessorInterlocked)).WritePath);
        Assert.Equal(WritePath.PerThread, new MetricRegistry(Storages.Options(Storages.PerThread)).WritePath);

        var interlockedRegistry = new MetricRegistry(Storages.Options(Storages.PerProcessorInterlocked));
        CounterSeries interlocked = interlockedRegistry.CreateCounter("test.interlocked").Bind();
        Assert.Equal(interlockedRegistry.WritePath, interlocked.WritePath);
        var byDefault = new MetricRegistry(new MetricRegistryOptions { SeriesStorage = SeriesStorage.PerPartition });
        CounterSeries restartable = byDefault.CreateCounter("test.restartable").Bind();
        if (RestartableSequence.IsSupported)
        {
            Assert.Equal(RestartableSequence.PartitionCount + 1, restartable.RegionCount);
            Assert.Equal(ProcessorId.PartitionCount, interlocked.RegionCount);
        }
        else
        {
            // Not supported: the default registry's series have no overflow region.
            Assert.NotEqual(WritePath.RestartableSequence, restartable.WritePath);
            Assert.Equal(byDefault.PartitionCount, restartable.RegionCount);
        }
    }
}
