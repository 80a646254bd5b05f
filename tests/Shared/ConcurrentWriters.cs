namespace ScalableMetrics.Tests.Shared;

/// <summary>Runs writers on dedicated threads released together by a gate, after OpenTelemetry's MultithreadedLongCounterTest.</summary>
internal static class ConcurrentWriters
{
    public static void Run(int threadCount, Action<int> write, Action? whileRunning = null)
    {
        using var gate = new ManualResetEventSlim(false);
        var threads = new Thread[threadCount];
        Exception? failure = null;
        for (int t = 0; t < threadCount; t++)
        {
            int index = t;
            threads[t] = new Thread(() =>
            {
                try
                {
                    gate.Wait();
                    write(index);
                }
                catch (Exception e)
                {
                    failure = e;
                }
            });
            threads[t].Start();
        }

        gate.Set();
        if (whileRunning is not null)
        {
            // At least once, right as the writers start: fast writers (per thread, on a quiet
            // machine) could otherwise all finish before the first check that they are alive.
            do
            {
                whileRunning();
            }
            while (threads.Any(t => t.IsAlive));
        }

        foreach (Thread thread in threads)
        {
            thread.Join();
        }

        if (failure is not null)
        {
            throw new InvalidOperationException("A writer thread failed.", failure);
        }
    }
}
