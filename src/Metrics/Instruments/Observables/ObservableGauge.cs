using ScalableMetrics.Instruments;
using ScalableMetrics.Instruments.Observables;

namespace ScalableMetrics;

/// <summary>
/// An observable gauge of a value the service keeps or can read (memory in use, a queue length): the registry calls the callback at every
/// collection and exports what it reports as a Prometheus gauge.
/// </summary>
/// <remarks>
/// <para>Create one with <c>MetricRegistry.CreateObservableGauge</c>. Thread-safe; see
/// <see cref="ObservableInstrument"/> for how a collection treats what the callback reports.</para>
/// <para>Reported values may be anything, NaN and infinities included (exported as <c>NaN</c>, <c>+Inf</c>, <c>-Inf</c>).</para>
/// </remarks>
public sealed class ObservableGauge : ObservableInstrument
{
    internal ObservableGauge(string name, string? unit, string? description, ObservedValues values)
        : base(name, unit, description, values, sumsWithinCollection: false)
    {
    }

    /// <inheritdoc/>
    internal override void Accept(IInstrumentSink sink) => sink.ObservableGauge(this);
}
