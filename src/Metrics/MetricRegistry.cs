using ScalableMetrics.Platform;

namespace ScalableMetrics;

/// <summary>
/// Creates and holds partitioned instruments, and tells observers (such as the OpenTelemetry
/// bridge) about each one. Thread-safe.
/// </summary>
/// <remarks>
/// Instrument names are unique per registry, compared case-insensitively as OpenTelemetry
/// identifies instruments: creating an instrument again with the same name, kind and unit returns
/// the existing one. An <see cref="OperationData"/> also takes its <see cref="OperationData.CountName"/>.
/// </remarks>
public sealed class MetricRegistry
{
    // Every name taken, an operation's count name included, to the instrument that took it.
    private readonly Dictionary<string, Instrument> _names = new(StringComparer.OrdinalIgnoreCase);
    private readonly List<Instrument> _instruments = [];
    private readonly List<Action<Instrument>> _observers = [];
    private readonly Lock _lock = new();
    private readonly int _maxSeriesPerInstrument;
    private readonly SeriesStorage _storage;

    /// <summary>Creates a registry with the default <see cref="MetricRegistryOptions"/>.</summary>
    public MetricRegistry()
        : this(new MetricRegistryOptions())
    {
    }

    /// <summary>Creates a registry.</summary>
    /// <param name="options">Its settings, read once here.</param>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><see cref="MetricRegistryOptions.MaxSeriesPerInstrument"/> is below 2, or <see cref="MetricRegistryOptions.Strategy"/> is not a defined value.</exception>
    public MetricRegistry(MetricRegistryOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (!Enum.IsDefined(options.Strategy))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.Strategy, $"{nameof(MetricRegistryOptions.Strategy)} is not a defined {nameof(PartitionStrategy)}.");
        }

        if (options.MaxSeriesPerInstrument < 2)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.MaxSeriesPerInstrument, $"{nameof(MetricRegistryOptions.MaxSeriesPerInstrument)} must be at least 2.");
        }

        Strategy = options.Strategy == PartitionStrategy.PerProcessor && !ProcessorId.IsSupported ? PartitionStrategy.PerThread : options.Strategy;
        _maxSeriesPerInstrument = options.MaxSeriesPerInstrument;
        _storage = Strategy == PartitionStrategy.PerThread ? SeriesStorage.PerThread
            : options.UseRestartableSequences && RestartableSequence.IsSupported ? SeriesStorage.PerProcessorRestartable
            : SeriesStorage.PerProcessorInterlocked;
    }

    /// <summary>The strategy this registry's instruments use: the one asked for, or <see cref="PartitionStrategy.PerThread"/> where no processor id can be had.</summary>
    public PartitionStrategy Strategy { get; }

    /// <summary>
    /// Whether this registry's per-processor series add through restartable sequences (a plain
    /// add, no atomic instruction; see <see cref="RestartableSequence"/>) rather than with
    /// <see cref="Interlocked"/>: <see langword="true"/> where <see cref="Strategy"/> is
    /// <see cref="PartitionStrategy.PerProcessor"/>, <see cref="MetricRegistryOptions.UseRestartableSequences"/>
    /// is set and <see cref="RestartableSequence.IsSupported"/>.
    /// </summary>
    public bool UsesRestartableSequences => _storage == SeriesStorage.PerProcessorRestartable;

    /// <summary>A snapshot of the instruments created so far.</summary>
    public IReadOnlyList<Instrument> Instruments
    {
        get
        {
            lock (_lock)
            {
                return [.. _instruments];
            }
        }
    }

    /// <summary>Creates a partitioned counter, or returns the one already created with this name and unit.</summary>
    /// <param name="name">The instrument name, e.g. <c>webapi.requests</c>; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="unit">The unit, e.g. <c>{request}</c> or <c>By</c>; null for none.</param>
    /// <param name="description">A description; null for none.</param>
    /// <returns>The counter.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> or <paramref name="unit"/> breaks OpenTelemetry's syntax, or the name is taken by an instrument of another kind or unit.</exception>
    public PartitionedCounter CreateCounter(string name, string? unit = null, string? description = null) =>
        GetOrCreate(name, unit, () => new PartitionedCounter(name, unit, description, _storage, _maxSeriesPerInstrument));

    /// <summary>Creates an operation timer (count and elapsed seconds), or returns the one already created with this name.</summary>
    /// <param name="name">The instrument name, e.g. <c>webapi.request.duration</c>; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="description">A description; null for none.</param>
    /// <returns>The operation timer; its unit is <see cref="OperationData.ElapsedUnit"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> breaks OpenTelemetry's syntax, or is taken by an instrument of another kind.</exception>
    public OperationData CreateOperationData(string name, string? description = null) =>
        GetOrCreate(name, OperationData.ElapsedUnit, () => new OperationData(name, description, _storage, _maxSeriesPerInstrument));

    /// <summary>
    /// Calls <paramref name="onInstrument"/> for every instrument created so far and, until the
    /// returned handle is disposed, for every one created later; each exactly once.
    /// </summary>
    /// <param name="onInstrument">Called under the registry's lock: it must not create instruments.</param>
    /// <returns>A handle that stops the calls when disposed.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="onInstrument"/> is null.</exception>
    public IDisposable ObserveInstruments(Action<Instrument> onInstrument)
    {
        ArgumentNullException.ThrowIfNull(onInstrument);
        lock (_lock)
        {
            foreach (Instrument instrument in _instruments)
            {
                onInstrument(instrument);
            }

            _observers.Add(onInstrument);
        }

        return new Subscription(this, onInstrument);
    }

    private T GetOrCreate<T>(string name, string? unit, Func<T> create)
        where T : Instrument
    {
        InstrumentNames.Validate(name, unit);
        lock (_lock)
        {
            if (_names.TryGetValue(name, out Instrument? existing))
            {
                if (existing is T same && string.Equals(same.Name, name, StringComparison.OrdinalIgnoreCase) && string.Equals(same.Unit, unit, StringComparison.Ordinal))
                {
                    return same;
                }

                throw NameTaken(name, existing);
            }

            string? countName = typeof(T) == typeof(OperationData) ? name + OperationData.CountNameSuffix : null;
            if (countName is not null && _names.TryGetValue(countName, out Instrument? countOwner))
            {
                throw NameTaken(countName, countOwner);
            }

            T created = create();
            _names.Add(name, created);
            if (countName is not null)
            {
                _names.Add(countName, created);
            }

            _instruments.Add(created);
            foreach (Action<Instrument> observer in _observers)
            {
                observer(created);
            }

            return created;
        }
    }

    private static ArgumentException NameTaken(string name, Instrument owner) => new(
        $"The name '{name}' is taken by the {owner.GetType().Name} '{owner.Name}' (unit '{owner.Unit}'); names are unique per registry, case-insensitively, and an {nameof(OperationData)} also takes its name followed by '{OperationData.CountNameSuffix}'.",
        "name");

    private sealed class Subscription(MetricRegistry registry, Action<Instrument> observer) : IDisposable
    {
        public void Dispose()
        {
            lock (registry._lock)
            {
                registry._observers.Remove(observer);
            }
        }
    }
}
