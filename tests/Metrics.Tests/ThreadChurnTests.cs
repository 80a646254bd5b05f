namespace ScalableMetrics.Tests;

public class ThreadChurnTests
{
    [Fact]
    public void ShortLivedThreadsAreCountedExactlyAndTheirCellsRetire()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread });
        CounterSeries series = registry.CreateCounter("test.churn").Bind();
        const int Threads = 3_200;
        const int AddsPerThread = 100;
        const int Concurrent = 16;

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

        // Registration sweeps ended threads as the list doubles, so it never held all 3,200.
        Assert.InRange(series.LiveThreadCellCount, 0, 2 * 64);
        Assert.Equal((long)Threads * AddsPerThread, series.Read());

        // Every writer has been joined: the read retired every cell.
        Assert.Equal(0, series.LiveThreadCellCount);
        Assert.Equal((long)Threads * AddsPerThread, series.Read());
    }

    [Fact]
    public void LiveThreadKeepsItsCellAcrossReads()
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread });
        CounterSeries series = registry.CreateCounter("test.live").Bind();
        series.Add(5);
        Assert.Equal(5, series.Read());
        Assert.Equal(1, series.LiveThreadCellCount);
        series.Add(5);
        Assert.Equal(10, series.Read());
        Assert.Equal(1, series.LiveThreadCellCount);
    }
}
