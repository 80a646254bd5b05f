using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Interop;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Tests.Platform;

/// <summary>
/// Writers the kernel must restart: signals make it restart a sequence they interrupt, so writers
/// more than the processors are signalled all the time (SIGWINCH, handled so that it is
/// delivered), and some adds are interrupted between reading the id and the commit. The window is
/// a few instructions, so the writers run until 10 adds have been restarted (seen here: 0.1 to
/// 10 s on 2 cores) or 30 s have passed. Run it from the process-wide-state collection, alone, so
/// that no other test's adds count in <see cref="RestartableSequence.RestartCount"/>.
/// </summary>
[SupportedOSPlatform("linux")]
internal static class SignalledWriters
{
    private const int SigWinch = 28;
    private const int EnoughRestarts = 10;

    /// <summary>Runs the writers, each calling <paramref name="writeBatch"/> over and over, while this thread signals them and calls <paramref name="read"/>.</summary>
    /// <returns>The writers, the batches they wrote in all, the signals sent, the restarts counted, and the time it took.</returns>
    public static (int Threads, long Batches, long Signals, long Restarts, TimeSpan Elapsed) Run(Action writeBatch, Action read)
    {
        int threads = Math.Max(8, Environment.ProcessorCount * 4);
        long restartsBefore = RestartableSequence.RestartCount;
        using PosixSignalRegistration handled = PosixSignalRegistration.Create(PosixSignal.SIGWINCH, context => context.Cancel = true);
        int[] writerTids = new int[threads];
        long[] batches = new long[threads];
        long signals = 0;
        bool stop = false;
        var elapsed = Stopwatch.StartNew();

        ConcurrentWriters.Run(
            threads,
            index =>
            {
                Volatile.Write(ref writerTids[index], Libc.GetTid());
                while (!Volatile.Read(ref stop))
                {
                    writeBatch();
                    batches[index]++;
                }
            },
            whileRunning: () =>
            {
                for (int i = 0; i < threads; i++)
                {
                    int tid = Volatile.Read(ref writerTids[i]);
                    if (tid != 0 && Libc.TgKill(Environment.ProcessId, tid, SigWinch) == 0)
                    {
                        signals++;
                    }
                }

                read();
                if (RestartableSequence.RestartCount - restartsBefore >= EnoughRestarts || elapsed.Elapsed > TimeSpan.FromSeconds(30))
                {
                    Volatile.Write(ref stop, true);
                }
            });

        return (threads, batches.Sum(), signals, RestartableSequence.RestartCount - restartsBefore, elapsed.Elapsed);
    }
}
