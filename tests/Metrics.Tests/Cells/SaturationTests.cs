namespace ScalableMetrics.Tests.Cells;

/// <summary>Slots and sums stop at <see cref="long.MaxValue"/>: a counter read never wraps to a negative number and never goes down.</summary>
public class SaturationTests
{
    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void AddingPastMaxValueReadsMaxValue(string storage)
    {
        PartitionedCounter counter = new MetricRegistry(Storages.Options(storage)).CreateCounter("test.saturate");
        CounterSeries series = counter.Bind();
        series.Add(long.MaxValue);
        series.Add(1);
        Assert.Equal(long.MaxValue, series.Read());
        series.Add(long.MaxValue);
        series.Increment();
        Assert.Equal(long.MaxValue, series.Read());
        Assert.Equal(long.MaxValue, Assert.Single(counter.Collect()).Value);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void TwoLegalAddsOnTwoPartitionsDoNotWrapTheSum(string storage)
    {
        PartitionedCounter counter = new MetricRegistry(Storages.Options(storage)).CreateCounter("test.saturate.sum");
        CounterSeries series = counter.Bind();

        // Two threads: on per-thread storage two regions for sure; per processor, two regions
        // where the threads run on two processors, else one slot that saturates.
        ConcurrentWriters.Run(2, _ => series.Add(long.MaxValue - 1));
        series.Add(5);
        Assert.Equal(long.MaxValue, series.Read());
        Assert.Equal(long.MaxValue, Assert.Single(counter.Collect()).Value);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void OperationCountAndTicksSaturate(string storage)
    {
        OperationSeries series = new MetricRegistry(Storages.Options(storage)).CreateOperationData("test.saturate.op").Bind();
        // Records of the longest legal elapsed time until their sum passes long.MaxValue.
        long longest = OperationData.MaxElapsedTimestampTicks;
        long records = (long.MaxValue / longest) + 2;
        for (long i = 0; i < records; i++)
        {
            series.RecordElapsedTicks(longest);
        }

        OperationReading reading = series.Read();
        Assert.Equal(records, reading.Count);
        Assert.Equal(long.MaxValue, reading.ElapsedTimestampTicks);
    }

    [Fact]
    public void VectorizedSumSaturatesEveryLane()
    {
        long[] sums = [.. Enumerable.Repeat(long.MaxValue - 3, 37)];
        long[] slots = [.. Enumerable.Range(0, 37).Select(i => (long)i)];
        ScalableMetrics.Cells.SaturatingSum.AddInto(sums, slots);
        for (int i = 0; i < sums.Length; i++)
        {
            Assert.Equal(i <= 3 ? long.MaxValue - 3 + i : long.MaxValue, sums[i]);
        }
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void ADoubleCounterFedFiniteIncrementsPastTheRangeReadsDoubleMaxValueNotInfinity(string storage)
    {
        PartitionedDoubleCounter counter = new MetricRegistry(Storages.Options(storage)).CreateDoubleCounter("bytes", "By");
        DoubleCounterSeries series = counter.Bind();
        series.Add(double.MaxValue);
        series.Add(double.MaxValue);
        counter.Add(double.MaxValue);

        Assert.Equal(double.MaxValue, series.Read());
        Assert.Equal(double.MaxValue, Assert.Single(counter.Collect()).Value);
        series.Add(1);
        Assert.Equal(double.MaxValue, series.Read());
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void ADoubleUpDownCounterFedFiniteIncrementsPastTheRangeReadsDoubleMaxValueOfItsSign(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedDoubleUpDownCounter down = registry.CreateDoubleUpDownCounter("down");
        DoubleUpDownCounterSeries series = down.Bind();
        series.Add(-double.MaxValue);
        series.Add(-double.MaxValue);
        PartitionedDoubleUpDownCounter up = registry.CreateDoubleUpDownCounter("up");
        up.Add(double.MaxValue);
        up.Add(double.MaxValue);

        Assert.Equal(-double.MaxValue, series.Read());
        Assert.Equal(-double.MaxValue, Assert.Single(down.Collect()).Value);
        Assert.Equal(double.MaxValue, Assert.Single(up.Collect()).Value);
    }

    [Fact]
    public void ADoubleUpDownCounterWhosePartitionsPassTheRangeInOppositeDirectionsNeverReadsNaN()
    {
        // Finite changes only, summing to 0: past double.MaxValue upwards in one partition (the
        // test thread's) and downwards in another (a second thread's, alive meanwhile, so that it
        // holds another thread index: two regions for sure). Each partition's slot is infinite, and
        // a read that adds +∞ and -∞ is NaN, for good, where the CHANGELOG has a double up-down
        // counter fed finite changes past the range read double.MaxValue of its sign.
        var registry = new MetricRegistry(Storages.Options(Storages.PerThread));
        PartitionedDoubleUpDownCounter counter = registry.CreateDoubleUpDownCounter("balance");
        DoubleUpDownCounterSeries series = counter.Bind();
        series.Add(double.MaxValue);
        series.Add(double.MaxValue);
        var added = new ManualResetEventSlim();
        var done = new ManualResetEventSlim();
        var other = new Thread(() =>
        {
            series.Add(-double.MaxValue);
            series.Add(-double.MaxValue);
            added.Set();
            done.Wait();
        });
        other.Start();
        added.Wait();
        try
        {
            double read = series.Read();
            double collected = Assert.Single(counter.Collect()).Value;
            Assert.False(double.IsNaN(read), $"read {read}");
            Assert.False(double.IsNaN(collected), $"collected {collected}");
            series.Add(1);
            Assert.False(double.IsNaN(series.Read()), "a later add");
        }
        finally
        {
            done.Set();
            other.Join();
        }
    }
}
