namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// Our <see cref="PartitionedCounter"/>, bound once (<see cref="SeriesInstrument{TSeries}.Bind">PartitionedCounter.Bind</see>) and
/// incremented through the bound <see cref="CounterSeries"/>: the hot path an application uses.
/// </summary>
/// <remarks>
/// <para>Three ids keep a copy per partition from the series' creation
/// (<see cref="SeriesStorage.PerPartition"/>, the layout before compact series, so that their
/// figures compare across versions): <c>partitioned</c> (PerProcessor with the registry's defaults:
/// a restartable sequence where the process supports it), <c>partitioned-interlocked</c>
/// (PerProcessor with restartable sequences turned off: the cached processor id and
/// <see cref="Interlocked"/>, the path every other platform takes) and <c>partitioned-per-thread</c>.</para>
/// <para>Three measure <see cref="SeriesStorage.Adaptive"/> on the default write path:
/// <c>partitioned-promoted</c> (the series promoted before the run: the promoted add, which must
/// run as fast as <c>partitioned</c>), <c>partitioned-adaptive</c> (a fresh series, compact until
/// the run's writers contend on it: the default a user gets) and <c>partitioned-compact</c>
/// (<see cref="SeriesStorage.Compact"/>: one compare-and-swap per add, against
/// <c>shared-interlocked</c>). The total is read through <see cref="PartitionedCounter.Collect"/>,
/// as an exporter would.</para>
/// </remarks>
internal sealed class Partitioned : CountingImplementation
{
    private readonly PartitionStrategy _strategy;
    private readonly bool _useRestartableSequences;
    private readonly SeriesStorage _storage;
    private readonly bool _promote;
    private PartitionedCounter? _counter;
    private CounterSeries? _series;

    public Partitioned(PartitionStrategy strategy, bool useRestartableSequences, SeriesStorage storage = SeriesStorage.PerPartition, bool promote = false)
    {
        _strategy = strategy;
        _useRestartableSequences = useRestartableSequences;
        _storage = storage;
        _promote = promote;
        Id = (storage, promote) switch
        {
            (SeriesStorage.Compact, _) => "partitioned-compact",
            (SeriesStorage.Adaptive, true) => "partitioned-promoted",
            (SeriesStorage.Adaptive, false) => "partitioned-adaptive",
            _ => strategy == PartitionStrategy.PerThread ? "partitioned-per-thread" : useRestartableSequences ? "partitioned" : "partitioned-interlocked",
        };
    }

    public override string Id { get; }

    public override string Description => _storage switch
    {
        SeriesStorage.Compact => "PartitionedCounter, SeriesStorage.Compact (one compare-and-swap per add), bound series Increment()",
        SeriesStorage.Adaptive when _promote => "PartitionedCounter, SeriesStorage.Adaptive, series promoted before the run (restartable sequence where supported), bound series Increment()",
        SeriesStorage.Adaptive => "PartitionedCounter, SeriesStorage.Adaptive, a fresh series (compact until contended), bound series Increment()",
        _ => _strategy == PartitionStrategy.PerThread
            ? "PartitionedCounter, PerThread, per partition from creation, bound series Increment()"
            : _useRestartableSequences
                ? "PartitionedCounter, PerProcessor (restartable sequence where supported), per partition from creation, bound series Increment()"
                : "PartitionedCounter, PerProcessor with UseRestartableSequences=false (cached processor id, Interlocked), per partition from creation, bound series Increment()",
    };

    public override void Prepare(int threads)
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = _strategy, UseRestartableSequences = _useRestartableSequences, SeriesStorage = _storage });
        _counter = registry.CreateCounter("scaling.adds", "{add}");
        _series = _counter.Bind();
        if (_promote && !_series.TryPromote())
        {
            throw new InvalidOperationException($"{Id}: the series could not be promoted.");
        }
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
