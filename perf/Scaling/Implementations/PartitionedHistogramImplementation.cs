namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// Our <see cref="PartitionedHistogram"/> with its default boundaries (OpenTelemetry's), bound
/// once (<see cref="SeriesInstrument{TSeries}.Bind">PartitionedHistogram.Bind</see>) and recorded through the bound
/// <see cref="HistogramSeries"/>: the hot path an application that times work uses.
/// </summary>
/// <remarks>
/// Two ids with a copy per partition from the series' creation (<see cref="SeriesStorage.PerPartition"/>,
/// the layout before compact series): <c>histogram-partitioned</c> (PerProcessor with the registry's
/// defaults: a restartable sequence where the process supports it) and
/// <c>histogram-partitioned-per-thread</c>; and <c>histogram-partitioned-promoted</c>, a
/// <see cref="SeriesStorage.Adaptive"/> series promoted before the run (the promoted record).
/// Each record adds 1 to the value's bucket and the value to the sum, in the calling partition's
/// region. The total is the sum of the bucket counts of <see cref="PartitionedHistogram.Collect"/>,
/// as an exporter reads them, checked against the values recorded (<see cref="HistogramCheck"/>).
/// </remarks>
internal sealed class PartitionedHistogramImplementation : CountingImplementation
{
    private readonly PartitionStrategy _strategy;
    private readonly bool _promoted;
    private PartitionedHistogram? _histogram;
    private HistogramSeries? _series;

    public PartitionedHistogramImplementation(PartitionStrategy strategy, bool promoted = false)
    {
        _strategy = strategy;
        _promoted = promoted;
        Id = promoted ? "histogram-partitioned-promoted" : strategy == PartitionStrategy.PerThread ? "histogram-partitioned-per-thread" : "histogram-partitioned";
    }

    public override string Id { get; }

    public override string Description => _promoted
        ? "PartitionedHistogram, PerProcessor, SeriesStorage.Adaptive, series promoted before the run, default boundaries, bound series Record(double)"
        : _strategy == PartitionStrategy.PerThread
            ? "PartitionedHistogram, PerThread, per partition from creation, default boundaries, bound series Record(double)"
            : "PartitionedHistogram, PerProcessor (restartable sequence where supported), per partition from creation, default boundaries, bound series Record(double)";

    public override void Prepare(int threads)
    {
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = _strategy, SeriesStorage = _promoted ? SeriesStorage.Adaptive : SeriesStorage.PerPartition });
        _histogram = registry.CreateHistogram("scaling.records", "ms");
        if (!_histogram.Boundaries.SequenceEqual(HistogramValues.DefaultBoundaries))
        {
            // The cycle puts one value in each default bucket; other boundaries would compare unlike work with OpenTelemetry's.
            throw new InvalidOperationException($"{Id}: the default boundaries are [{string.Join(", ", _histogram.Boundaries)}], not OpenTelemetry's.");
        }

        _series = _histogram.Bind();
        if (_promoted && !_series.TryPromote())
        {
            throw new InvalidOperationException($"{Id}: the series could not be promoted.");
        }
    }

    public override long Run(int threadIndex, StopSignal stop) => HotLoop.Run(new Recorder(_series!, HistogramValues.Cycle), stop);

    public override long ReadTotal()
    {
        IReadOnlyList<HistogramReading> readings = _histogram!.Collect();
        if (readings.Count != 1)
        {
            throw new InvalidOperationException($"{Id}: collected {readings.Count} series, expected the one bound series.");
        }

        return HistogramCheck.Total(Id, readings[0].BucketCounts, readings[0].Sum);
    }

    /// <summary>Records the next value of the cycle; mutable, so the loop's copy keeps its place.</summary>
    internal struct Recorder(HistogramSeries series, double[] cycle) : IAdder
    {
        private int _next;

        public void Add() => series.Record(HistogramValues.At(cycle, _next++));
    }
}
