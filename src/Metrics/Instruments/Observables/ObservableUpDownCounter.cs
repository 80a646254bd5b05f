using ScalableMetrics.Instruments;
using ScalableMetrics.Instruments.Observables;

namespace ScalableMetrics;

/// <summary>
/// An observable up-down counter of a total the service keeps that goes up and down (items in a queue it counts itself): the registry calls the callback at every
/// collection and exports what it reports as a Prometheus gauge.
/// </summary>
/// <remarks>
/// <para>Create one with <c>MetricRegistry.CreateObservableUpDownCounter</c>. Thread-safe; see
/// <see cref="ObservableInstrument"/> for how a collection treats what the callback reports.</para>
/// <para>Reported values may be of either sign, not NaN.</para>
/// </remarks>
public sealed class ObservableUpDownCounter : ObservableInstrument
{
    internal ObservableUpDownCounter(string name, string? unit, string? description, ObservedValues values)
        : base(name, unit, description, values, sumsWithinCollection: true)
    {
    }

    /// <inheritdoc/>
    internal override void CheckValue(double value)
    {
        if (double.IsNaN(value))
        {
            throw new ArgumentOutOfRangeException(nameof(value), value, "An up-down counter's value must not be NaN.");
        }
    }

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.ObservableUpDownCounter(this);
}
