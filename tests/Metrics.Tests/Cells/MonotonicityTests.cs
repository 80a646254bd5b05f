namespace ScalableMetrics.Tests.Cells;

public class MonotonicityTests
{

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void CollectedValueNeverDecreasesWhileWritersRunAndThreadsEnd(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedCounter counter = registry.CreateCounter("test.monotonic");
        CounterSeries series = counter.Bind();
        using var done = new CancellationTokenSource();
        long expected = 0;
        long reads = 0;

        // Two long-lived writers, and a stream of short-lived ones whose indexes (per thread) pass to later threads mid-run.
        var steady = Enumerable.Range(0, 2).Select(_ => new Thread(() =>
        {
            while (!done.IsCancellationRequested)
            {
                series.Add(1);
                Interlocked.Increment(ref expected);
            }
        })).ToArray();
        var churn = new Thread(() =>
        {
            for (int i = 0; i < 300; i++)
            {
                var shortLived = new Thread(() =>
                {
                    for (int j = 0; j < 1_000; j++)
                    {
                        series.Add(3);
                    }

                    Interlocked.Add(ref expected, 3_000);
                });
                shortLived.Start();
                shortLived.Join();
            }
        });
        Exception? readerFailure = null;
        var reader = new Thread(() =>
        {
            try
            {
                long previous = 0;
                while (!done.IsCancellationRequested)
                {
                    long current = Assert.Single(counter.Collect()).Value;
                    Assert.True(current >= previous, $"Collected {current} after {previous}.");
                    previous = current;
                    reads++;
                }
            }
            catch (Exception e)
            {
                readerFailure = e;
            }
        });

        foreach (Thread t in steady)
        {
            t.Start();
        }

        churn.Start();
        reader.Start();
        churn.Join();
        done.Cancel();
        foreach (Thread t in steady)
        {
            t.Join();
        }

        reader.Join();
        Assert.Null(readerFailure);
        Assert.True(reads > 10, $"Only {reads} reads were taken.");
        Assert.Equal(Interlocked.Read(ref expected), series.Read());
    }
}
