using ScalableMetrics.Cells;
using ScalableMetrics.Diagnostics;

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

    // Every series' slots, one region per partition (see PartitionArena).
    private readonly PartitionArena _arena;

    /// <summary>Creates a registry with the default <see cref="MetricRegistryOptions"/>.</summary>
    public MetricRegistry()
        : this(new MetricRegistryOptions())
    {
    }

    /// <summary>Creates a registry.</summary>
    /// <param name="options">Its settings, read once here.</param>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><see cref="MetricRegistryOptions.MaxSeriesPerInstrument"/> is below 2, <see cref="MetricRegistryOptions.Strategy"/> is not a defined value, or <see cref="MetricRegistryOptions.PartitionCount"/> is below what this machine needs or above <see cref="MetricRegistryOptions.MaxPartitionCount"/>.</exception>
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

        (WritePath, WritePathReason) = WritePathChoice.Choose(options.Strategy, options.UseRestartableSequences, ProcessorId.IsSupported, RestartableSequence.UnsupportedReason);
        Strategy = WritePath == WritePath.PerThread ? PartitionStrategy.PerThread : PartitionStrategy.PerProcessor;
        _maxSeriesPerInstrument = options.MaxSeriesPerInstrument;
        PartitionCount = ChoosePartitionCount(options.PartitionCount, WritePath);
        _arena = new PartitionArena(WritePath, WritePath == WritePath.RestartableSequence ? RestartableWritePath.RegionCount(PartitionCount) : PartitionCount);
    }

    /// <summary>The strategy this registry's instruments use: the one asked for, or <see cref="PartitionStrategy.PerThread"/> where no processor id can be had.</summary>
    public PartitionStrategy Strategy { get; }

    /// <summary>How this registry's series take an add: chosen from <see cref="MetricRegistryOptions.Strategy"/>, <see cref="MetricRegistryOptions.UseRestartableSequences"/> and what this process supports; <see cref="WritePathReason"/> says why.</summary>
    public WritePath WritePath { get; }

    /// <summary>Why this registry uses its <see cref="WritePath"/>, in a sentence (e.g. the reason restartable sequences are not available here).</summary>
    public string WritePathReason { get; }

    /// <summary>
    /// The partitions each series keeps a slot for: processor ids (plus one overflow region with
    /// <see cref="WritePath.RestartableSequence"/>), or, per thread, the thread indexes its first
    /// regions are made for (more are added as threads take indexes).
    /// </summary>
    /// <remarks><see cref="MetricRegistryOptions.PartitionCount"/> where set; otherwise read from the machine.</remarks>
    public int PartitionCount { get; }

    /// <summary>The bytes this registry's series slots take: all of its arena's chunks (pinned object heap), used or not.</summary>
    internal long SlotBytes => _arena.ReservedBytes;

    /// <summary>The arena of this registry's series (for tests and the harness).</summary>
    internal PartitionArena Arena => _arena;

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
        GetOrCreate(name, unit, () => new PartitionedCounter(name, unit, description, _arena, _maxSeriesPerInstrument));

    /// <summary>Creates an operation timer (count and elapsed seconds), or returns the one already created with this name.</summary>
    /// <param name="name">The instrument name, e.g. <c>webapi.request.duration</c>; see <see cref="Instrument.Name"/> for the syntax.</param>
    /// <param name="description">A description; null for none.</param>
    /// <returns>The operation timer; its unit is <see cref="OperationData.ElapsedUnit"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="name"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> breaks OpenTelemetry's syntax, or is taken by an instrument of another kind.</exception>
    public OperationData CreateOperationData(string name, string? description = null) =>
        GetOrCreate(name, OperationData.ElapsedUnit, () => new OperationData(name, description, _arena, _maxSeriesPerInstrument));

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

    // What the machine needs: a region for every processor id a write path can pick.
    private static int ChoosePartitionCount(int? asked, WritePath writePath)
    {
        int needed = writePath switch
        {
            WritePath.RestartableSequence => RestartableSequence.PartitionCount,
            WritePath.InterlockedProcessorId => ProcessorId.PartitionCount,
            _ => 1,
        };
        if (asked is not { } count)
        {
            return writePath == WritePath.PerThread ? Math.Max(ThreadLease.IndexCount, Environment.ProcessorCount) : needed;
        }

        if (count < needed || count > MetricRegistryOptions.MaxPartitionCount)
        {
            throw new ArgumentOutOfRangeException(
                "options",
                count,
                $"{nameof(MetricRegistryOptions.PartitionCount)} must be from {needed} (what write path {writePath} needs on this machine) to {MetricRegistryOptions.MaxPartitionCount}.");
        }

        return count;
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
