namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// The kind of registry instrument a System.Diagnostics.Metrics instrument is aggregated by: one
/// per .NET instrument kind the registry has (<see cref="ListenedType"/> maps the types).
/// </summary>
internal enum ListenedKind
{
    /// <summary><c>Counter&lt;T&gt;</c>: a <see cref="PartitionedCounter"/>, or a <see cref="PartitionedDoubleCounter"/> for a floating-point <c>T</c>.</summary>
    Counter,

    /// <summary><c>UpDownCounter&lt;T&gt;</c>: a <see cref="PartitionedUpDownCounter"/>, or a <see cref="PartitionedDoubleUpDownCounter"/>.</summary>
    UpDownCounter,

    /// <summary><c>Histogram&lt;T&gt;</c>: a <see cref="PartitionedHistogram"/>, for every <c>T</c>.</summary>
    Histogram,

    /// <summary><c>Gauge&lt;T&gt;</c>: a <see cref="Gauge"/>, or a <see cref="DoubleGauge"/>.</summary>
    Gauge,

    /// <summary><c>ObservableCounter&lt;T&gt;</c>: an <see cref="ObservableCounter"/>.</summary>
    ObservableCounter,

    /// <summary><c>ObservableUpDownCounter&lt;T&gt;</c>: an <see cref="ObservableUpDownCounter"/>.</summary>
    ObservableUpDownCounter,

    /// <summary><c>ObservableGauge&lt;T&gt;</c>: an <see cref="ObservableGauge"/>.</summary>
    ObservableGauge,
}
