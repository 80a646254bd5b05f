namespace ScalableMetrics.Tests.Instruments;

/// <summary>Collection sums chunk by chunk, region by region: the same values as reading each series alone.</summary>
public class CollectTests
{
    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void CollectOfSeriesAcrossManyChunksMatchesEachSeriesRead(string storage)
    {
        MetricRegistryOptions options = Storages.Options(storage);
        options.MaxSeriesPerInstrument = 10_000;
        var registry = new MetricRegistry(options);
        PartitionedCounter counter = registry.CreateCounter("test.collect");
        OperationData operation = registry.CreateOperationData("test.collect.op");

        // Interleaved, so that the two instruments' slots share chunks; 3,000 series span many.
        var counterSeries = new List<CounterSeries>();
        var operationSeries = new List<OperationSeries>();
        for (int i = 0; i < 3_000; i++)
        {
            var tag = new KeyValuePair<string, object?>("i", i);
            counterSeries.Add(counter.Bind(tag));
            if (i % 3 == 0)
            {
                operationSeries.Add(operation.Bind(tag));
            }
        }

        ConcurrentWriters.Run(3, writer =>
        {
            for (int i = 0; i < counterSeries.Count; i++)
            {
                counterSeries[i].Add(i + writer);
            }

            for (int i = 0; i < operationSeries.Count; i++)
            {
                operationSeries[i].RecordElapsedTicks(i);
            }
        });

        IReadOnlyList<CounterReading> readings = counter.Collect();
        Assert.Equal(counterSeries.Count, readings.Count);
        foreach (CounterReading reading in readings)
        {
            int i = Convert.ToInt32(reading.Tags[0].Value);
            Assert.Equal((3L * i) + 3, reading.Value);
        }

        IReadOnlyList<OperationReading> operations = operation.Collect();
        Assert.Equal(operationSeries.Count, operations.Count);
        foreach (OperationReading reading in operations)
        {
            int i = Convert.ToInt32(reading.Tags[0].Value);
            Assert.Equal(3, reading.Count);
            Assert.Equal(3L * (i / 3), reading.ElapsedTimestampTicks);
        }
    }
}
