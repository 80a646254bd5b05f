namespace ScalableMetrics;

/// <summary>A counter series' cumulative value, as collected.</summary>
/// <param name="Tags">The tags that name the series.</param>
/// <param name="Value">The total added to the series since it was created.</param>
public readonly record struct CounterReading(TagSet Tags, long Value);
