namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// Our <see cref="PartitionedCounter"/>, bound once (<see cref="PartitionedCounter.Bind"/>) and
/// incremented through the bound <see cref="CounterSeries"/>: the hot path an application uses.
/// </summary>
/// <remarks>
/// Three ids: <c>partitioned</c> (PerProcessor with the registry's defaults: a restartable
/// sequence where the process supports it), <c>partitioned-interlocked</c> (PerProcessor with
/// restartable sequences turned off: the cached processor id and <see cref="Interlocked"/>, the
/// path every other platform takes) and <c>partitioned-per-thread</c>. The total is read through
/// <see cref="PartitionedCounter.Collect"/>, as an exporter would.
/// </remarks>
internal sealed class Partitioned : CountingImplementation
{
    private readonly PartitionStrategy _strategy;
    private readonly bool _useRestartableSequences;
    private PartitionedCounter? _counter;
    private CounterSeries? _series;

    public Partitioned(PartitionStrategy strategy, bool useRestartableSequences)
    {
        _strategy = strategy;
        _useRestartableSequences = useRestartableSequences;
        Id = strategy == PartitionStrategy.PerThread ? "partitioned-per-thread"
            : useRestartableSequences ? "partitioned" : "partitioned-interlocked";
    }

    public override string Id { get; }

    public override string Description => _strategy == PartitionStrategy.PerThread
        ? "PartitionedCounter, PerThread, bound series Increment()"
        : _useRestartableSequences
            ? "PartitionedCounter, PerProcessor (restartable sequence where supported), bound series Increment()"
            : "PartitionedCounter, PerProcessor with UseRestartableSequences=false (cached processor id, Interlocked), bound series Increment()";

    public override void Prepare(int threads)
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = _strategy, UseRestartableSequences = _useRestartableSequences });
        _counter = registry.CreateCounter("scaling.adds", "{add}");
        _series = _counter.Bind();
    }

    public override long Run(int threadIndex, StopSignal stop) => HotLoop.Run(new Adder(_series!), stop);

    public override long ReadTotal()
    {
        long total = 0;
        foreach (CounterReading reading in _counter!.Collect())
        {
            total += reading.Value;
        }

        return total;
    }

    internal readonly struct Adder(CounterSeries series) : IAdder
    {
        public void Add() => series.Increment();
    }
}
