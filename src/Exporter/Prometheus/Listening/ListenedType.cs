using System.Collections.Frozen;
using System.Diagnostics.Metrics;
using ScalableMetrics.Naming;
using SdmInstrument = System.Diagnostics.Metrics.Instrument;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// What the listener makes of a System.Diagnostics.Metrics instrument's type: the kind of
/// registry instrument it records into, and whether its values are floating-point (recorded as
/// <see cref="double"/>, as <see cref="MeasurementDispatch"/> passes them). The one table from
/// .NET's instrument types to ours, read by the host (what an instrument exports as) and the
/// factory (what it creates), so that the two cannot disagree.
/// </summary>
/// <param name="Kind">The registry instrument's kind.</param>
/// <param name="IsFloatingPoint">Whether the value type is <see cref="float"/>, <see cref="double"/> or <see cref="decimal"/>.</param>
internal readonly record struct ListenedType(ListenedKind Kind, bool IsFloatingPoint)
{
    // Every instrument type .NET has that the registry has a kind for, closed over every value
    // type .NET allows (all of them sealed, so an instrument's own type is its key).
    private static readonly FrozenDictionary<Type, ListenedType> s_types = CreateTable();

    /// <summary>Whether the registry instrument is an observable one, whose callback the listener observes.</summary>
    public bool IsObservable => Kind is ListenedKind.ObservableCounter or ListenedKind.ObservableUpDownCounter or ListenedKind.ObservableGauge;

    /// <summary>The kind the registry instrument exports as: an up-down counter, a non-monotonic sum, as a gauge.</summary>
    public ExportedKind ExportedKind => Kind switch
    {
        ListenedKind.Counter or ListenedKind.ObservableCounter => ExportedKind.Counter,
        ListenedKind.Histogram => ExportedKind.Histogram,
        _ => ExportedKind.Gauge,
    };

    /// <summary>What <paramref name="instrument"/> is recorded as, or null for a type the registry has no kind for.</summary>
    public static ListenedType? Of(SdmInstrument instrument) =>
        s_types.TryGetValue(instrument.GetType(), out ListenedType type) ? type : null;

    private static FrozenDictionary<Type, ListenedType> CreateTable()
    {
        var types = new Dictionary<Type, ListenedType>();
        Add<byte>(types, isFloatingPoint: false);
        Add<short>(types, isFloatingPoint: false);
        Add<int>(types, isFloatingPoint: false);
        Add<long>(types, isFloatingPoint: false);
        Add<float>(types, isFloatingPoint: true);
        Add<double>(types, isFloatingPoint: true);
        Add<decimal>(types, isFloatingPoint: true);
        return types.ToFrozenDictionary();
    }

    private static void Add<T>(Dictionary<Type, ListenedType> types, bool isFloatingPoint)
        where T : struct
    {
        types.Add(typeof(Counter<T>), new(ListenedKind.Counter, isFloatingPoint));
        types.Add(typeof(UpDownCounter<T>), new(ListenedKind.UpDownCounter, isFloatingPoint));
        types.Add(typeof(Histogram<T>), new(ListenedKind.Histogram, isFloatingPoint));
        types.Add(typeof(Gauge<T>), new(ListenedKind.Gauge, isFloatingPoint));
        types.Add(typeof(ObservableCounter<T>), new(ListenedKind.ObservableCounter, isFloatingPoint));
        types.Add(typeof(ObservableUpDownCounter<T>), new(ListenedKind.ObservableUpDownCounter, isFloatingPoint));
        types.Add(typeof(ObservableGauge<T>), new(ListenedKind.ObservableGauge, isFloatingPoint));
    }
}
