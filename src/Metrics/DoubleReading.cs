namespace ScalableMetrics;

/// <summary>A series' <see cref="double"/> value, as collected: a double counter's or up-down counter's total, a gauge's last value, or an observation.</summary>
/// <param name="Tags">The tags that name the series.</param>
/// <param name="Value">The value.</param>
public readonly record struct DoubleReading(TagSet Tags, double Value);
