namespace ScalableMetrics.Exporter.OpenTelemetry;

/// <summary>The sums of <see cref="CounterTotals{T}"/>'s totals: at most the largest value, where the
/// registry's counters saturate.</summary>
internal static class CounterSums
{
    /// <summary><paramref name="a"/> + <paramref name="b"/>, both not negative, at most <see cref="long.MaxValue"/>.</summary>
    public static long Add(long a, long b) => b > long.MaxValue - a ? long.MaxValue : a + b;

    /// <summary><paramref name="a"/> + <paramref name="b"/>, both not negative, at most <see cref="double.MaxValue"/>.</summary>
    public static double Add(double a, double b) => Math.Min(a + b, double.MaxValue);
}
