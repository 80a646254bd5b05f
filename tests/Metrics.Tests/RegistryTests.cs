using ScalableMetrics.Diagnostics;
using ScalableMetrics.Naming;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;
using ScalableMetrics.Tests.Diagnostics;
using ScalableMetrics.Tests.Platform;

namespace ScalableMetrics.Tests;

public class RegistryTests
{
    [Fact]
    public void CreatingAgainWithTheSameNameAndUnitReturnsTheSameInstrument()
    {
        var registry = new MetricRegistry();
        PartitionedCounter counter = registry.CreateCounter("test.same", "{request}", "first");
        Assert.Same(counter, registry.CreateCounter("TEST.SAME", "{request}", "second"));
        Assert.Same(registry.CreateOperationData("test.op"), registry.CreateOperationData("test.op"));
        Assert.Equal(2, registry.Instruments.Count);
    }

    [Fact]
    public void ANameTakenByAnotherKindOrUnitIsRejected()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("test.taken", "By");
        Assert.Equal("name", Assert.Throws<ArgumentException>(() => registry.CreateCounter("test.taken", "s")).ParamName);
        Assert.Equal("name", Assert.Throws<ArgumentException>(() => registry.CreateOperationData("test.taken")).ParamName);
    }

    [Fact]
    public void ObserversSeeEveryInstrumentOnceUntilDisposed()
    {
        var registry = new MetricRegistry();
        registry.CreateCounter("test.before");
        var seen = new List<string>();
        IDisposable subscription = registry.ObserveInstruments(i => seen.Add(i.Name));
        registry.CreateOperationData("test.after");
        registry.CreateCounter("test.before");
        subscription.Dispose();
        registry.CreateCounter("test.late");

        Assert.Equal(["test.before", "test.after"], seen);
    }

    [Fact]
    public void PerProcessorIsUsedWhereTheOperatingSystemGivesAProcessorId()
    {
        // Whether the operating system gives a processor id, asked apart from ProcessorId: procfs'
        // processor field on Linux; GetCurrentProcessorNumberEx, always there, on Windows.
        bool operatingSystemGivesAnId = OperatingSystem.IsWindows() || (OperatingSystem.IsLinux() && Procfs.CurrentProcessor() >= 0);
        Assert.Equal(operatingSystemGivesAnId, ProcessorId.IsSupported);

        var options = new MetricRegistryOptions();
        var registry = new MetricRegistry(options);
        WritePath expected = WritePathPolicy.For(options.Strategy, options.UseRestartableSequences, operatingSystemGivesAnId, RestartableSequence.IsSupported);
        Assert.Equal(expected, registry.WritePath);
        Assert.Equal(operatingSystemGivesAnId ? PartitionStrategy.PerProcessor : PartitionStrategy.PerThread, registry.Strategy);
        Assert.Equal(registry.Strategy, registry.CreateCounter("test.strategy").Bind().Strategy);
    }

    [Fact]
    public void AnOperationsCountNameIsReservedBothWays()
    {
        var registry = new MetricRegistry();
        OperationData operation = registry.CreateOperationData("test.duration");
        Assert.Equal("test.duration.count", PublishedInstrument.OperationCount(operation.Name).Name);
        Assert.Contains("taken by the OperationData 'test.duration'", Assert.Throws<ArgumentException>(() => registry.CreateCounter("test.duration.count")).Message);

        registry.CreateCounter("test.other.count");
        Assert.Equal("name", Assert.Throws<ArgumentException>(() => registry.CreateOperationData("test.other")).ParamName);
        Assert.Equal(2, registry.Instruments.Count);
    }
}
