namespace ScalableMetrics;

/// <summary>
/// Which measurements a counter or histogram series keeps as an <see cref="Exemplar"/>, after
/// OpenTelemetry's <c>ExemplarFilterType</c> (specification, SDK, "ExemplarFilter").
/// </summary>
/// <remarks>Set on <see cref="MetricRegistryOptions.ExemplarFilter"/>; read once, when the registry is created.</remarks>
public enum ExemplarFilter
{
    /// <summary>No measurement is kept: no exemplar storage is ever allocated, and an add or record runs the same instructions as before exemplars existed.</summary>
    None = 0,

    /// <summary>
    /// A measurement is kept when <see cref="System.Diagnostics.Activity.Current"/> is not null and
    /// <see cref="System.Diagnostics.Activity.Recorded"/>: the sampled measurements of a traced
    /// request, with the trace and span they were taken in.
    /// </summary>
    TraceBased = 1,

    /// <summary>
    /// Every measurement is offered (OpenTelemetry's <c>AlwaysOn</c>): each series, partition and
    /// bucket keeps its last (an exponential histogram's series and partition, a sample of a fixed size), with the trace and span of <see cref="System.Diagnostics.Activity.Current"/>
    /// where there is one (recorded or not), and none where there is not. Each add or record reads the
    /// clock and writes a slot behind a sequence lock: the costliest filter, for services that want an
    /// exemplar on every series whether traced or not.
    /// </summary>
    AlwaysOn = 2,
}
