namespace ScalableMetrics.Tests;

public class ThreadChurnTests
{
    [Fact]
    public void ShortLivedThreadsAreCountedExactlyAndTheirCellsAreReused()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread });
        CounterSeries series = registry.CreateCounter("test.churn").Bind();
        const int Threads = 3_200;
        const int AddsPerThread = 100;
        const int Concurrent = 16;
        int indexesBefore = ThreadLease.IndexCount;

        for (int started = 0; started < Threads; started += Concurrent)
        {
            ConcurrentWriters.Run(Concurrent, _ =>
            {
                for (int i = 0; i < AddsPerThread; i++)
                {
                    series.Add(1);
                }
            });
        }

        // Indexes of ended threads go to later threads, which add on to their cells: far fewer
        // indexes were handed out than threads ran (3,200), the series' arrays together hold
        // fewer than 4 cells per index (they at most double), and nothing was lost in the
        // hand-overs.
        Assert.InRange(ThreadLease.IndexCount - indexesBefore, 0, Threads / 10);
        Assert.InRange(series.ThreadCellCount, 1, (4 * ThreadLease.IndexCount) - 1);
        Assert.Equal((long)Threads * AddsPerThread, series.Read());
        Assert.Equal((long)Threads * AddsPerThread, series.Read());
    }

    [Fact]
    public void AddsToAnOutgrownArrayStillCount()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread });
        CounterSeries series = registry.CreateCounter("test.grow").Bind();
        series.Add(5);
        int cellsBefore = series.ThreadCellCount;

        // More threads holding an index at once than the first array has cells: at least 32 get
        // indexes past its end, so the series moves to larger arrays while others are adding.
        int concurrent = cellsBefore + 32;
        const int AddsPerThread = 10_000;
        using var allHoldAnIndex = new Barrier(concurrent);
        ConcurrentWriters.Run(concurrent, _ =>
        {
            series.Add(1);
            allHoldAnIndex.SignalAndWait();
            for (int i = 1; i < AddsPerThread; i++)
            {
                series.Add(1);
            }
        });

        Assert.True(series.ThreadCellCount > cellsBefore, $"the cells did not grow past {cellsBefore}");
        Assert.Equal(5 + ((long)concurrent * AddsPerThread), series.Read());
        series.Add(5);
        Assert.Equal(10 + ((long)concurrent * AddsPerThread), series.Read());
    }
}
