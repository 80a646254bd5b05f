namespace ScalableMetrics.Tests.Cells;

public class ExactnessTests
{
    private const int AddsPerThread = 200_000;


    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void BoundCounterSumsExactlyWhileCollectionsRun(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        CounterSeries series = registry.CreateCounter("test.adds").Bind();
        Assert.Equal(registry.WritePath, series.WritePath);
        int threads = Math.Max(4, Environment.ProcessorCount * 2);
        int collections = 0;

        ConcurrentWriters.Run(
            threads,
            _ =>
            {
                for (int i = 0; i < AddsPerThread; i++)
                {
                    series.Add(1);
                }
            },
            whileRunning: () =>
            {
                series.Read();
                collections++;
            });

        Assert.True(collections > 0);
        Assert.Equal((long)threads * AddsPerThread, series.Read());
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void TaggedAddsLandInTheirOwnSeriesExactly(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedCounter counter = registry.CreateCounter("test.tagged");
        int threads = 4;

        ConcurrentWriters.Run(threads, index =>
        {
            var tag = new KeyValuePair<string, object?>("writer", index % 2);
            for (int i = 0; i < AddsPerThread / 4; i++)
            {
                counter.Add(2, tag, new("fixed", "yes"));
            }
        }, whileRunning: () => counter.Collect());

        IReadOnlyList<CounterReading> readings = counter.Collect();
        Assert.Equal(2, readings.Count);
        Assert.All(readings, r => Assert.Equal(2L * 2 * (AddsPerThread / 4), r.Value));
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void OperationDataCountsEveryOperationAndItsTicks(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        OperationSeries series = registry.CreateOperationData("test.operation").Bind(new KeyValuePair<string, object?>("kind", "exact"));
        int threads = 4;

        ConcurrentWriters.Run(threads, _ =>
        {
            for (int i = 0; i < AddsPerThread; i++)
            {
                series.RecordElapsedTicks(3);
            }
        }, whileRunning: () => series.Read());

        OperationReading reading = series.Read();
        Assert.Equal((long)threads * AddsPerThread, reading.Count);
        Assert.Equal(3L * threads * AddsPerThread, reading.ElapsedTimestampTicks);
    }

    [Fact]
    public void OperationScopeRecordsOneOperationWithItsElapsedTime()
    {
        OperationData operation = new MetricRegistry().CreateOperationData("test.scope");
        using (operation.Start())
        {
            Thread.Sleep(20);
        }

        operation.Record(TimeSpan.FromSeconds(1.5));

        OperationReading reading = Assert.Single(operation.Collect());
        Assert.Equal(2, reading.Count);
        Assert.InRange(reading.ElapsedSeconds, 1.5 + 0.015, 1.5 + 5);
    }
}
