using System.Diagnostics.Metrics;
using ScalableMetrics.Instruments;
using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Naming;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Publishing;

/// <summary>
/// Publishes a registry's instruments as <see cref="System.Diagnostics.Metrics"/> instruments of a
/// meter of the registry's name, so that every <see cref="MeterListener"/> (<c>dotnet-counters</c>,
/// dotnet-monitor, an <c>EventListener</c> of <c>System.Diagnostics.Metrics</c>) sees them: counters,
/// up-down counters, gauges and observable instruments as observable instruments read from the
/// registry when the listener collects; histograms (explicit, exponential, operations with buckets)
/// as <see cref="Histogram{T}"/>s that carry, while a listener has enabled them, the values recorded
/// since the last tick, replayed from the buckets' counts.
/// </summary>
/// <remarks>
/// <para><b>No cost on the add.</b> Nothing is forwarded per measurement: the registry's write path
/// is the same with or without a listener. Observable instruments cost only the listener's own
/// collection. A histogram is replayed once per <see cref="TickInterval"/>, and only while some
/// listener has it enabled (<see cref="System.Diagnostics.Metrics.Instrument.Enabled"/>); otherwise a tick reads one flag per histogram.</para>
/// <para><b>What a listener of a histogram sees.</b> Each value recorded since the last tick, as its
/// bucket's representative (an explicit bucket's midpoint, the first bucket's upper bound halved,
/// the last bucket's lower bound; an exponential bucket's geometric midpoint; zero for the zero
/// bucket): the count is exact up to <see cref="MaxReplayedPerSeries"/> values per series and tick,
/// past which each bucket's count is scaled down alike, so that the distribution's shape (and the
/// percentiles <c>dotnet-counters</c> shows) stays, within a bucket's width. The registry's own
/// exports are exact; this view is for live triage. The first tick after a listener enables a
/// histogram only takes the counts as a baseline.</para>
/// <para><b>No collection.</b> A read of the registry here (a listener's collection, a tick) reads
/// the series' values as they are, and is no collection of the instrument
/// (<see cref="Instrument.ReadInto(InstrumentSnapshot, bool)"/>): it counts toward no series' idle
/// expiry (<see cref="MetricRegistryOptions.RemoveSeriesIdleForCollections"/>) and removes no series,
/// so that the exporters' collections alone decide both, whether a listener is attached or not. A
/// removed series is read, its value as it is, until the exporter's collection that removes it, and
/// not after: a histogram's values recorded into it after the last tick before that collection are
/// not replayed (docs/series-lifecycle.md). An observable instrument's callback runs at each of a
/// listener's collections, as at every reader's.</para>
/// <para>An operation without buckets is published as its count (<c>NAME.count</c>) and elapsed
/// seconds, as observable counters. Thread-safe; disposed with its host.</para>
/// </remarks>
internal sealed class RegistryMeterPublisher : IDisposable
{
    /// <summary>How often histograms are replayed to their listeners.</summary>
    public static readonly TimeSpan TickInterval = TimeSpan.FromSeconds(1);

    /// <summary>The most values one histogram series replays per tick.</summary>
    public const int MaxReplayedPerSeries = 10_000;

    private readonly Meter _meter;
    private readonly IDisposable _subscription;
    private readonly Timer _timer;
    private readonly Lock _lock = new();
    private readonly List<HistogramReplay> _histograms = [];
    private bool _disposed;

    /// <summary>Publishes <paramref name="registry"/>'s instruments, present and future, under a meter <paramref name="meterName"/>.</summary>
    /// <param name="registry">The registry.</param>
    /// <param name="meterName">The meter's name (<c>ScalableMetricsOptions.MeterName</c>).</param>
    /// <param name="meterVersion">The meter's version, or null.</param>
    /// <param name="meterFactory">The container's meter factory, or null for a meter of its own.</param>
    /// <param name="tickInterval">How often histograms are replayed: <see cref="TickInterval"/>, or
    /// <see cref="Timeout.InfiniteTimeSpan"/> for only when <see cref="Tick"/> is called (tests).</param>
    public RegistryMeterPublisher(MetricRegistry registry, string meterName, string? meterVersion, IMeterFactory? meterFactory, TimeSpan? tickInterval = null)
    {
        _meter = meterFactory is null
            ? new Meter(meterName, meterVersion)
            : meterFactory.Create(new MeterOptions(meterName) { Version = meterVersion });
        var sink = new Publisher(this);
        _subscription = registry.ObserveInstruments(instrument => instrument.Accept(sink));
        TimeSpan interval = tickInterval ?? TickInterval;
        _timer = new Timer(static state => ((RegistryMeterPublisher)state!).Tick(), this, interval, interval);
    }

    /// <summary>The meter the instruments are published on.</summary>
    public Meter Meter => _meter;

    /// <summary>Replays every enabled histogram's values since the last tick; what the timer calls, and tests.</summary>
    internal void Tick()
    {
        lock (_lock)
        {
            if (_disposed)
            {
                return;
            }

            foreach (HistogramReplay replay in _histograms)
            {
                replay.Tick();
            }
        }
    }

    public void Dispose()
    {
        lock (_lock)
        {
            _disposed = true;
        }

        _timer.Dispose();
        _subscription.Dispose();

        // A factory's meter ignores this; the factory disposes it with the container.
        _meter.Dispose();
    }

    private void AddHistogram(HistogramReplay replay)
    {
        lock (_lock)
        {
            _histograms.Add(replay);
        }
    }

    // Called under the registry's lock: it creates meter instruments only.
    private sealed class Publisher(RegistryMeterPublisher owner) : IInstrumentSink
    {
        private Meter Meter => owner._meter;

        public void Counter(PartitionedCounter counter) =>
            Meter.CreateObservableCounter(counter.Name, () => Longs(counter), counter.Unit, counter.Description);

        public void DoubleCounter(PartitionedDoubleCounter counter) =>
            Meter.CreateObservableCounter(counter.Name, () => Doubles(counter), counter.Unit, counter.Description);

        public void UpDownCounter(PartitionedUpDownCounter counter) =>
            Meter.CreateObservableUpDownCounter(counter.Name, () => Longs(counter), counter.Unit, counter.Description);

        public void DoubleUpDownCounter(PartitionedDoubleUpDownCounter counter) =>
            Meter.CreateObservableUpDownCounter(counter.Name, () => Doubles(counter), counter.Unit, counter.Description);

        public void Gauge(Gauge gauge) =>
            Meter.CreateObservableGauge(gauge.Name, () => Longs(gauge), gauge.Unit, gauge.Description);

        public void DoubleGauge(DoubleGauge gauge) =>
            Meter.CreateObservableGauge(gauge.Name, () => Doubles(gauge), gauge.Unit, gauge.Description);

        // Observable instruments hold doubles, whatever their callback reports.
        public void ObservableCounter(ObservableCounter counter) =>
            Meter.CreateObservableCounter(counter.Name, () => Doubles(counter), counter.Unit, counter.Description);

        public void ObservableUpDownCounter(ObservableUpDownCounter counter) =>
            Meter.CreateObservableUpDownCounter(counter.Name, () => Doubles(counter), counter.Unit, counter.Description);

        public void ObservableGauge(ObservableGauge gauge) =>
            Meter.CreateObservableGauge(gauge.Name, () => Doubles(gauge), gauge.Unit, gauge.Description);

        public void Operation(OperationData operation)
        {
            if (operation.Boundaries is { } boundaries)
            {
                owner.AddHistogram(new ExplicitReplay(operation, Meter.CreateHistogram<double>(operation.Name, operation.Unit, operation.Description), boundaries));
                return;
            }

            PublishedInstrument elapsed = PublishedInstrument.OperationElapsed(operation.Name);
            PublishedInstrument count = PublishedInstrument.OperationCount(operation.Name);
            Meter.CreateObservableCounter(elapsed.Name, () => SnapshotReadings.Measurements(operation, static (snapshot, i) => snapshot.ElapsedSecondsAt(i), collection: false), elapsed.Unit, operation.Description);
            Meter.CreateObservableCounter(count.Name, () => SnapshotReadings.Measurements(operation, static (snapshot, i) => snapshot.OperationCountAt(i), collection: false), count.Unit, operation.Description);
        }

        public void Histogram(PartitionedHistogram histogram) =>
            owner.AddHistogram(new ExplicitReplay(histogram, Meter.CreateHistogram<double>(histogram.Name, histogram.Unit, histogram.Description), histogram.Boundaries));

        public void ExponentialHistogram(PartitionedExponentialHistogram histogram) =>
            owner.AddHistogram(new ExponentialReplay(histogram, Meter.CreateHistogram<double>(histogram.Name, histogram.Unit, histogram.Description)));

        // An instrument's measurements, read as they are: no collection (see the remarks of RegistryMeterPublisher).
        private static Measurement<long>[] Longs(Instrument instrument) => SnapshotReadings.LongMeasurements(instrument, collection: false);

        // As Longs, as doubles.
        private static Measurement<double>[] Doubles(Instrument instrument) => SnapshotReadings.DoubleMeasurements(instrument, collection: false);
    }

    /// <summary>One registry histogram and the meter's histogram it replays into.</summary>
    private abstract class HistogramReplay(Instrument instrument, Histogram<double> published)
    {
        private readonly InstrumentSnapshot _snapshot = new();

        // Series to the bucket counts last seen: what was replayed (or taken as the baseline), for
        // the series the last tick read. A tick fills _next with the series it reads and swaps the
        // two, so a series gone from the instrument (removed) is held by neither after the tick
        // that no longer reads it: its memory is reclaimed (docs/series-lifecycle.md, "Memory").
        private Dictionary<object, (long Layout, long[] Counts)> _last = new(ReferenceEqualityComparer.Instance);
        private Dictionary<object, (long Layout, long[] Counts)> _next = new(ReferenceEqualityComparer.Instance);
        private bool _wasEnabled;

        /// <summary>Bucket counts of series <paramref name="i"/> of the snapshot, and the representative
        /// value of each; returns the layout they are in (an exponential reading's scale and offset): counts
        /// of another layout than the last are only taken as a baseline.</summary>
        protected abstract long Read(InstrumentSnapshot snapshot, int i, out long[] counts, out double[] values);

        public void Tick()
        {
            if (!published.Enabled)
            {
                _wasEnabled = false;
                _last.Clear();
                return;
            }

            bool baseline = !_wasEnabled;
            _wasEnabled = true;
            instrument.ReadInto(_snapshot, collection: false);
            try
            {
                for (int i = 0; i < _snapshot.Count; i++)
                {
                    object series = _snapshot.KeyAt(i);
                    bool seen = _last.TryGetValue(series, out (long Layout, long[] Counts) last);
                    long layout = Read(_snapshot, i, out long[] counts, out double[] values);
                    _next[series] = (layout, counts);

                    // A series first met while listened to replays from zero; on the first tick, all are the baseline.
                    if (baseline || (seen && (last.Layout != layout || last.Counts.Length != counts.Length)))
                    {
                        continue;
                    }

                    Replay(_snapshot.TagsAt(i), seen ? last.Counts : null, counts, values);
                }

                // What this tick read is kept; what it did not read is let go.
                (_last, _next) = (_next, _last);
            }
            finally
            {
                // The snapshot, kept for the next tick, holds no series until then.
                _next.Clear();
                _snapshot.ReleaseReferences();
            }
        }

        private void Replay(TagSet tags, long[]? last, long[] counts, double[] values)
        {
            long total = 0;
            for (int b = 0; b < counts.Length; b++)
            {
                total += counts[b] - (last?[b] ?? 0);
            }

            double scale = total > MaxReplayedPerSeries ? (double)MaxReplayedPerSeries / total : 1;
            for (int b = 0; b < counts.Length; b++)
            {
                long delta = counts[b] - (last?[b] ?? 0);
                long times = scale == 1 ? delta : (long)Math.Round(delta * scale);
                for (long n = 0; n < times; n++)
                {
                    published.Record(values[b], tags.AsSpan());
                }
            }
        }
    }

    private sealed class ExplicitReplay(Instrument instrument, Histogram<double> published, IReadOnlyList<double> boundaries)
        : HistogramReplay(instrument, published)
    {
        private readonly double[] _values = RepresentativeValues(boundaries);

        protected override long Read(InstrumentSnapshot snapshot, int i, out long[] counts, out double[] values)
        {
            counts = snapshot.BucketCountsAt(i).ToArray();
            values = _values;
            return 0;
        }

        // (b[i-1], b[i]]: its midpoint; the first bucket's upper bound, halved where positive; the last's lower bound.
        private static double[] RepresentativeValues(IReadOnlyList<double> boundaries)
        {
            var values = new double[boundaries.Count + 1];
            values[0] = boundaries[0] > 0 ? boundaries[0] / 2 : boundaries[0];
            for (int b = 1; b < boundaries.Count; b++)
            {
                values[b] = (boundaries[b - 1] + boundaries[b]) / 2;
            }

            values[^1] = boundaries[^1];
            return values;
        }
    }

    private sealed class ExponentialReplay(Instrument instrument, Histogram<double> published)
        : HistogramReplay(instrument, published)
    {
        // The zero bucket, then the positive buckets from the reading's offset: a layout that moved
        // (downscaled, or a new lowest bucket) is taken as a new baseline.
        protected override long Read(InstrumentSnapshot snapshot, int i, out long[] counts, out double[] values)
        {
            ExponentialHistogramPoint point = snapshot.ExponentialHistogramAt(i);
            ReadOnlySpan<long> positive = point.PositiveBucketCounts;
            counts = new long[positive.Length + 1];
            values = new double[positive.Length + 1];
            double halfBase = Math.Sqrt(Math.Pow(2, Math.Pow(2, -point.Scale)));
            counts[0] = point.ZeroCount;
            values[0] = 0;
            for (int j = 0; j < positive.Length; j++)
            {
                counts[j + 1] = positive[j];
                values[j + 1] = point.PositiveBucketUpperBoundary(j) / halfBase;
            }

            return ((long)point.Scale << 32) | (uint)point.PositiveOffset;
        }
    }
}
