namespace ScalableMetrics.Scaling;

/// <summary>One point's result: the median of its repeats, as the table, the CSV and the chart show it.</summary>
/// <param name="Implementation">The implementation's id.</param>
/// <param name="Threads">The number of worker threads.</param>
/// <param name="OpsPerMillisecond">Adds per millisecond, all threads together, median of the repeats.</param>
/// <param name="MinOpsPerMillisecond">The slowest repeat.</param>
/// <param name="MaxOpsPerMillisecond">The fastest repeat.</param>
/// <param name="Speedup">The median over the same implementation's median at the lowest thread count measured (1 by default).</param>
/// <param name="Pinned">Whether worker threads were pinned to processors.</param>
/// <param name="Mismatches">Repeats whose total differed from the adds the workers counted.</param>
/// <param name="MaxOtherCores">The most processors' worth of time other processes (or the hypervisor) took during a repeat.</param>
internal sealed record PointResult(
    string Implementation,
    int Threads,
    double OpsPerMillisecond,
    double MinOpsPerMillisecond,
    double MaxOpsPerMillisecond,
    double Speedup,
    bool Pinned,
    int Mismatches,
    double MaxOtherCores)
{
    public double OpsPerMillisecondPerThread => OpsPerMillisecond / Threads;
}
