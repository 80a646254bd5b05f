using System.Diagnostics;
using System.Numerics;
using System.Runtime.InteropServices;
using ScalableMetrics.Diagnostics;
using Xunit.Abstractions;

namespace ScalableMetrics.Tests;

public class RestartableSequenceTests(ITestOutputHelper output)
{
    [Fact]
    public void SupportedWhereGlibcRegisteredAnRseqAreaOnLinuxX64()
    {
        bool expected = OperatingSystem.IsLinux()
            && RuntimeInformation.ProcessArchitecture == Architecture.X64
            && GlibcRegisteredRseq();

        Assert.True(expected == RestartableSequence.IsSupported, $"expected IsSupported={expected}; reason given: {RestartableSequence.UnsupportedReason ?? "none"}");
        Assert.Equal(RestartableSequence.IsSupported, RestartableSequence.UnsupportedReason is null);
    }

    [Fact]
    public void PartitionCountCoversEveryProcessorInTheAffinityMask()
    {
        if (!RestartableSequence.IsSupported || !OperatingSystem.IsLinux())
        {
            Assert.Equal(1, RestartableSequence.PartitionCount);
            return;
        }

        // An independent reading of the mask (the first 64 processors), through the runtime.
        long mask = (long)Process.GetCurrentProcess().ProcessorAffinity;
        Assert.True(mask != 0);
        int highest = 63 - BitOperations.LeadingZeroCount((ulong)mask);
        Assert.True(RestartableSequence.PartitionCount >= highest + 1);
        if (Environment.ProcessorCount <= 64)
        {
            Assert.Equal(highest + 1, RestartableSequence.PartitionCount);
        }
    }

    [Fact]
    public unsafe void SignalledWritersRestartAndEveryAddLandsExactlyOnce()
    {
        var registry = new MetricRegistry(Storages.Options(Storages.PerProcessorRestartable));
        CounterSeries series = registry.CreateCounter("test.restarts").Bind();
        Assert.Equal(registry.WritePath, series.WritePath);
        int threads = Math.Max(8, Environment.ProcessorCount * 4);
        const int AddsPerCheck = 10_000;
        const int EnoughRestarts = 10;
        long restartsBefore = RestartableSequence.RestartCount;

        // Signals make the kernel restart a sequence they interrupt: writers more than the
        // processors, signalled all the time (SIGWINCH, handled so that it is delivered), so
        // that some adds are interrupted between reading the processor id and the add. The
        // window is a few instructions, so the writers run until 10 adds have been restarted
        // (seen here: 0.1 to 10 s on 2 cores) or 30 s have passed.
        delegate* unmanaged<int> getTid = null;
        delegate* unmanaged<int, int, int, int> signalThread = null;
        bool canSignal = OperatingSystem.IsLinux()
            && NativeLibrary.TryLoad("libc.so.6", out IntPtr libc)
            && NativeLibrary.TryGetExport(libc, "gettid", out IntPtr gettid)
            && NativeLibrary.TryGetExport(libc, "tgkill", out IntPtr tgkill)
            && (getTid = (delegate* unmanaged<int>)gettid) != null
            && (signalThread = (delegate* unmanaged<int, int, int, int>)tgkill) != null;
        const int SigWinch = 28;
        using PosixSignalRegistration? handled = canSignal && OperatingSystem.IsLinux() ? PosixSignalRegistration.Create(PosixSignal.SIGWINCH, context => context.Cancel = true) : null;
        int[] writerTids = new int[threads];
        long[] adds = new long[threads];
        long signals = 0;
        bool stop = false;
        TimeSpan longest = RestartableSequence.IsSupported && canSignal ? TimeSpan.FromSeconds(30) : TimeSpan.FromSeconds(1);
        var elapsed = Stopwatch.StartNew();

        ConcurrentWriters.Run(
            threads,
            index =>
            {
                if (canSignal)
                {
                    Volatile.Write(ref writerTids[index], getTid());
                }

                while (!Volatile.Read(ref stop))
                {
                    for (int i = 0; i < AddsPerCheck; i++)
                    {
                        series.Add(3);
                    }

                    adds[index] += AddsPerCheck;
                }
            },
            whileRunning: () =>
            {
                for (int i = 0; i < threads && canSignal; i++)
                {
                    int tid = Volatile.Read(ref writerTids[i]);
                    if (tid != 0 && signalThread(Environment.ProcessId, tid, SigWinch) == 0)
                    {
                        signals++;
                    }
                }

                series.Read();
                if (RestartableSequence.RestartCount - restartsBefore >= EnoughRestarts || elapsed.Elapsed > longest)
                {
                    Volatile.Write(ref stop, true);
                }
            });

        Assert.Equal(3 * adds.Sum(), series.Read());
        long restarts = RestartableSequence.RestartCount - restartsBefore;
        output.WriteLine($"{threads} threads, {adds.Sum()} adds in {elapsed.Elapsed.TotalSeconds:F1} s; signals sent: {signals}; restarts: {restarts}");
        if (RestartableSequence.IsSupported && canSignal)
        {
            Assert.True(restarts > 0, $"no add was restarted in {signals} signals, so the restart path went untested");
        }
    }

    [Fact]
    public void RegistryUsesRestartableSequencesOnlyWhenAskedAndSupported()
    {
        Assert.Equal(RestartableSequence.IsSupported && ProcessorId.IsSupported, new MetricRegistry().WritePath == WritePath.RestartableSequence);
        Assert.NotEqual(WritePath.RestartableSequence, new MetricRegistry(Storages.Options(Storages.PerProcessorInterlocked)).WritePath);
        Assert.Equal(WritePath.PerThread, new MetricRegistry(Storages.Options(Storages.PerThread)).WritePath);

        var interlockedRegistry = new MetricRegistry(Storages.Options(Storages.PerProcessorInterlocked));
        CounterSeries interlocked = interlockedRegistry.CreateCounter("test.interlocked").Bind();
        Assert.Equal(interlockedRegistry.WritePath, interlocked.WritePath);
        if (RestartableSequence.IsSupported)
        {
            CounterSeries restartable = new MetricRegistry().CreateCounter("test.restartable").Bind();
            Assert.Equal(RestartableSequence.PartitionCount + 1, restartable.RegionCount);
            Assert.Equal(ProcessorId.PartitionCount, interlocked.RegionCount);
        }
    }

    private static unsafe bool GlibcRegisteredRseq() =>
        NativeLibrary.TryLoad("libc.so.6", out IntPtr libc)
        && NativeLibrary.TryGetExport(libc, "__rseq_size", out IntPtr size)
        && *(uint*)size != 0;
}
