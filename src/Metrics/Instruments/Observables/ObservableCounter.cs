using ScalableMetrics.Instruments;
using ScalableMetrics.Instruments.Observables;

namespace ScalableMetrics;

/// <summary>
/// An observable counter of a monotonic total the service keeps (bytes sent, CPU seconds), reported cumulatively by the callback: the registry calls the callback at every
/// collection and exports what it reports as a Prometheus counter (<c>B_total</c>).
/// </summary>
/// <remarks>
/// <para>Create one with <c>MetricRegistry.CreateObservableCounter</c>. Thread-safe; see
/// <see cref="ObservableInstrument"/> for how a collection treats what the callback reports.</para>
/// <para>Reported values must be zero or positive and not NaN: a counter is a cumulative total that only goes up.</para>
/// </remarks>
public sealed class ObservableCounter : ObservableInstrument
{
    internal ObservableCounter(string name, string? unit, string? description, ObservedValues values)
        : base(name, unit, description, values, sumsWithinCollection: true)
    {
    }

    /// <inheritdoc/>
    internal override void CheckValue(double value)
    {
        if (!(value >= 0))
        {
            throw new ArgumentOutOfRangeException(nameof(value), value, "A counter's value is a cumulative total: zero or positive, not NaN.");
        }
    }

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.ObservableCounter(this);
}
