namespace ScalableMetrics.Scaling;

/// <summary>One run of one point: what the workers counted, what the implementation read back, and how long it took.</summary>
/// <param name="Threads">The number of worker threads.</param>
/// <param name="Adds">The sum of the adds each worker counted in its own local.</param>
/// <param name="Total">The total the implementation reported afterwards.</param>
/// <param name="ElapsedSeconds">From the start gate opening to the last worker leaving its loop.</param>
/// <param name="OtherCores">Processors' worth of time other processes used meanwhile (0 where unknown).</param>
/// <param name="StolenCores">Processors' worth of time the hypervisor reported stolen meanwhile (0 where unknown).</param>
internal readonly record struct PointMeasurement(int Threads, long Adds, long Total, double ElapsedSeconds, double OtherCores, double StolenCores)
{
    public double OpsPerMillisecond => Adds / (ElapsedSeconds * 1000);

    public bool TotalMatches => Adds == Total;
}
