namespace ScalableMetrics.Instruments;

/// <summary>
/// What takes every kind of instrument in turn (the Prometheus source, the OpenTelemetry bridge,
/// the naming layer): one method per kind, which the kind calls on itself
/// (<see cref="Instrument.Accept"/>). A kind added to the core is a method added here, so that
/// every consumer fails to compile until it handles that kind, where a type switch would pass
/// over it in silence.
/// </summary>
/// <remarks>After OpenTelemetry's <c>MetricPoint</c>, which switches once on one explicit
/// aggregation type: here the choice is the kind's own override, made once per call.</remarks>
internal interface IInstrumentSink
{
    /// <summary>Takes a <see cref="PartitionedCounter"/>.</summary>
    /// <param name="counter">The instrument.</param>
    void Counter(PartitionedCounter counter);

    /// <summary>Takes a <see cref="PartitionedDoubleCounter"/>.</summary>
    /// <param name="counter">The instrument.</param>
    void DoubleCounter(PartitionedDoubleCounter counter);

    /// <summary>Takes a <see cref="PartitionedUpDownCounter"/>.</summary>
    /// <param name="counter">The instrument.</param>
    void UpDownCounter(PartitionedUpDownCounter counter);

    /// <summary>Takes a <see cref="PartitionedDoubleUpDownCounter"/>.</summary>
    /// <param name="counter">The instrument.</param>
    void DoubleUpDownCounter(PartitionedDoubleUpDownCounter counter);

    /// <summary>Takes a <see cref="ScalableMetrics.Gauge"/>.</summary>
    /// <param name="gauge">The instrument.</param>
    void Gauge(Gauge gauge);

    /// <summary>Takes a <see cref="ScalableMetrics.DoubleGauge"/>.</summary>
    /// <param name="gauge">The instrument.</param>
    void DoubleGauge(DoubleGauge gauge);

    /// <summary>Takes an <see cref="ScalableMetrics.ObservableCounter"/>.</summary>
    /// <param name="counter">The instrument.</param>
    void ObservableCounter(ObservableCounter counter);

    /// <summary>Takes an <see cref="ScalableMetrics.ObservableUpDownCounter"/>.</summary>
    /// <param name="counter">The instrument.</param>
    void ObservableUpDownCounter(ObservableUpDownCounter counter);

    /// <summary>Takes an <see cref="ScalableMetrics.ObservableGauge"/>.</summary>
    /// <param name="gauge">The instrument.</param>
    void ObservableGauge(ObservableGauge gauge);

    /// <summary>Takes a <see cref="PartitionedHistogram"/>.</summary>
    /// <param name="histogram">The instrument.</param>
    void Histogram(PartitionedHistogram histogram);

    /// <summary>Takes a <see cref="PartitionedExponentialHistogram"/>.</summary>
    /// <param name="histogram">The instrument.</param>
    void ExponentialHistogram(PartitionedExponentialHistogram histogram);

    /// <summary>Takes an <see cref="OperationData"/>.</summary>
    /// <param name="operation">The instrument.</param>
    void Operation(OperationData operation);
}
