namespace ScalableMetrics.Tests.Instruments.Operations;

/// <summary>An elapsed time beyond <see cref="OperationData.MaxElapsed"/> is refused, so no record can make a total negative.</summary>
public class DurationLimitTests
{
    [Fact]
    public void TimeSpanMaxValueIsRefusedAndTheTotalStaysRight()
    {
        OperationData operation = new MetricRegistry().CreateOperationData("test.max.elapsed");
        OperationSeries series = operation.Bind();
        Assert.Equal("elapsed", Assert.Throws<ArgumentOutOfRangeException>(() => operation.Record(TimeSpan.MaxValue)).ParamName);
        Assert.Equal("elapsed", Assert.Throws<ArgumentOutOfRangeException>(() => series.Record(TimeSpan.MaxValue)).ParamName);
        Assert.Equal("elapsed", Assert.Throws<ArgumentOutOfRangeException>(() => series.Record(OperationData.MaxElapsed + TimeSpan.FromTicks(1))).ParamName);
        Assert.Equal("elapsedTimestampTicks", Assert.Throws<ArgumentOutOfRangeException>(() => series.RecordElapsedTicks(long.MaxValue)).ParamName);
        Assert.Equal("elapsedTimestampTicks", Assert.Throws<ArgumentOutOfRangeException>(() => series.RecordElapsedTicks(long.MinValue)).ParamName);
        Assert.Contains("MaxElapsed", Assert.Throws<ArgumentOutOfRangeException>(() => operation.Record(TimeSpan.MaxValue)).Message);

        operation.Record(TimeSpan.FromSeconds(2));
        series.Record(OperationData.MaxElapsed);
        OperationReading reading = Assert.Single(operation.Collect());
        Assert.Equal(2, reading.Count);
        Assert.Equal(OperationData.MaxElapsed.TotalSeconds + 2, reading.ElapsedSeconds, precision: 3);
    }
}
