namespace ScalableMetrics;

/// <summary>A <see cref="long"/> series' value, as collected (an up-down counter's total; a gauge's last value).</summary>
/// <param name="Tags">The tags that name the series.</param>
/// <param name="Value">The value.</param>
public readonly record struct LongReading(TagSet Tags, long Value);
