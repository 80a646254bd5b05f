namespace ScalableMetrics;

/// <summary>A series' <see cref="long"/> value, as collected: an up-down counter's total or a gauge's last value.</summary>
/// <param name="Tags">The tags that name the series.</param>
/// <param name="Value">The value.</param>
public readonly record struct LongReading(TagSet Tags, long Value);
