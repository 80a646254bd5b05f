using System.Diagnostics;

namespace ScalableMetrics.Scaling;

/// <summary>
/// Measures one point: <c>threads</c> dedicated threads, released together by a start gate, each
/// adding 1 until the stop signal, after which the implementation's total is read.
/// </summary>
/// <remarks>Dedicated threads, not the pool, so that no other work shares them and each is pinned
/// (with <c>--pin</c>) before the gate opens.</remarks>
internal static class PointRunner
{
    public static PointMeasurement Run(CountingImplementation implementation, int threads, TimeSpan duration, IReadOnlyList<int>? pinTo)
    {
        implementation.Prepare(threads);
        var stop = new StopSignal();
        var adds = new long[threads];
        var ends = new long[threads];
        Exception? failure = null;
        using var ready = new CountdownEvent(threads);
        using var gate = new ManualResetEventSlim(false);

        var workers = new Thread[threads];
        for (int i = 0; i < threads; i++)
        {
            int index = i;
            workers[i] = new Thread(() =>
            {
                try
                {
                    if (pinTo is not null)
                    {
                        ThreadAffinity.PinCurrentThread(pinTo[index % pinTo.Count]);
                    }
                }
                catch (Exception e)
                {
                    Interlocked.CompareExchange(ref failure, e, null);
                }

                ready.Signal();
                gate.Wait();
                if (Volatile.Read(ref failure) is null)
                {
                    adds[index] = implementation.Run(index, stop);
                }

                ends[index] = Stopwatch.GetTimestamp();
            })
            {
                IsBackground = true,
                Name = $"scaling-worker-{index}",
            };
            workers[i].Start();
        }

        ready.Wait();
        LoadSample? loadBefore = LoadSample.Take();
        long start = Stopwatch.GetTimestamp();
        gate.Set();
        Thread.Sleep(duration);
        stop.Set();
        foreach (Thread worker in workers)
        {
            worker.Join();
        }

        LoadSample? loadAfter = LoadSample.Take();

        if (failure is not null)
        {
            throw new InvalidOperationException($"A worker of '{implementation.Id}' failed: {failure.Message}", failure);
        }

        long total = implementation.ReadTotal();
        double elapsed = Stopwatch.GetElapsedTime(start, ends.Max()).TotalSeconds;
        (double otherCores, double stolenCores) = loadBefore is { } before && loadAfter is { } after ? LoadSample.Between(before, after) : (0, 0);
        return new PointMeasurement(threads, adds.Sum(), total, elapsed, otherCores, stolenCores);
    }
}
