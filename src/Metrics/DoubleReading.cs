namespace ScalableMetrics;

/// <summary>A <see cref="double"/> series' value, as collected (a double counter's or up-down counter's total; a gauge's last value; an observation).</summary>
/// <param name="Tags">The tags that name the series.</param>
/// <param name="Value">The value.</param>
public readonly record struct DoubleReading(TagSet Tags, double Value);
