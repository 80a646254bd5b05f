namespace ScalableMetrics;

/// <summary>A series' <see cref="double"/> value, as collected: a double counter's or up-down counter's total, a gauge's last value, or an observation.</summary>
/// <param name="Tags">The tags that name the series.</param>
/// <param name="Value">The value.</param>
public readonly record struct DoubleReading(TagSet Tags, double Value)
{
    /// <summary>The newest <see cref="ScalableMetrics.Exemplar"/> kept for the series, or null where none was (<see cref="MetricRegistryOptions.ExemplarFilter"/> is <see cref="ExemplarFilter.None"/>, no add was sampled yet, or the instrument keeps none).</summary>
    /// <remarks>Read before <see cref="Value"/>: the exemplar's measurement is in the value.</remarks>
    public Exemplar? Exemplar { get; init; }
}
