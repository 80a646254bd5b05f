namespace ScalableMetrics;

/// <summary>A counter series' cumulative value, as collected.</summary>
/// <param name="Tags">The tags that name the series.</param>
/// <param name="Value">The total added to the series since it was created.</param>
public readonly record struct CounterReading(TagSet Tags, long Value)
{
    /// <summary>The newest <see cref="ScalableMetrics.Exemplar"/> kept for the series, or null where none was (<see cref="MetricRegistryOptions.ExemplarFilter"/> is <see cref="ExemplarFilter.None"/>, no add was sampled yet, or the instrument keeps none).</summary>
    /// <remarks>Read before <see cref="Value"/>: the exemplar's measurement is in the value.</remarks>
    public Exemplar? Exemplar { get; init; }
}
