namespace ScalableMetrics.Exporter.OpenTelemetry;

/// <summary>The sums of <see cref="CounterTotals{T}"/>'s <see cref="double"/> totals: at most the largest
/// value, where the registry's counters saturate (a <see cref="long"/> total's: <see cref="Instruments.Histograms.SaturatingCounts.Add"/>, the readers' saturating sum).</summary>
internal static class CounterSums
{
    /// <summary><paramref name="a"/> + <paramref name="b"/>, both not negative, at most <see cref="double.MaxValue"/>.</summary>
    public static double Add(double a, double b) => Math.Min(a + b, double.MaxValue);
}
