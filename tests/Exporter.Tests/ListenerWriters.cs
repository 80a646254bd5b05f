namespace ScalableMetrics.Exporter.Tests;

/// <summary>Runs writers on dedicated threads released together by a gate (after OpenTelemetry's
/// MultithreadedLongCounterTest), calling <c>whileRunning</c> on this thread until they end.</summary>
internal static class ListenerWriters
{
    public static void Run(int threadCount, Action<int> write, Action whileRunning)
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

        // At least once, right as the writers start (fast writers may all end before a first check).
        do
        {
            whileRunning();
        }
        while (threads.Any(t => t.IsAlive));

        foreach (Thread thread in threads)
        {
            thread.Join();
        }

        if (failure is not null)
        {
            throw new InvalidOperationException("A writer failed.", failure);
        }
    }
}
