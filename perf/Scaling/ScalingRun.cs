namespace ScalableMetrics.Scaling;

/// <summary>
/// Runs every point of a run: a warm-up, then the repeats, each repeat visiting every thread
/// count and, within it, every implementation, so that drift over the run (thermal, noisy
/// neighbours) is spread over all implementations instead of landing on one.
/// </summary>
internal static class ScalingRun
{
    // Long enough for the callees of the loops (OpenTelemetry's, Monitor's) to reach tier 1.
    private const double MaxWarmUpSeconds = 0.5;

    // With --max-busy-elsewhere, how many times a repeat taken on a busy machine is retaken before it is kept anyway.
    private const int MaxRetakes = 5;

    public static IReadOnlyList<PointResult> Measure(ScalingOptions options, TextWriter log, out int mismatches)
    {
        IReadOnlyList<int>? pinTo = options.Pin ? ThreadAffinity.AllowedProcessors() : null;
        var implementations = options.ImplementationIds.Select(ImplementationCatalog.Create).ToList();
        var samples = new Dictionary<(string Id, int Threads), List<PointMeasurement>>();
        mismatches = 0;
        try
        {
            var warmUp = TimeSpan.FromSeconds(Math.Min(MaxWarmUpSeconds, options.SecondsPerPoint));
            log.WriteLine($"warm-up: {warmUp.TotalSeconds:0.##} s per implementation at {options.Threads[^1]} threads");
            foreach (CountingImplementation implementation in implementations)
            {
                mismatches += Check(implementation, PointRunner.Run(implementation, options.Threads[^1], warmUp, pinTo), log);
            }

            var duration = TimeSpan.FromSeconds(options.SecondsPerPoint);
            for (int repeat = 1; repeat <= options.Repeats; repeat++)
            {
                foreach (int threads in options.Threads)
                {
                    foreach (CountingImplementation implementation in implementations)
                    {
                        PointMeasurement measurement = PointRunner.Run(implementation, threads, duration, pinTo);
                        for (int retake = 1; retake <= MaxRetakes && measurement.OtherCores + measurement.StolenCores > options.MaxBusyElsewhere; retake++)
                        {
                            log.WriteLine($"  retake {retake}/{MaxRetakes}: {implementation.Id} at {threads} threads ran while {measurement.OtherCores + measurement.StolenCores:0.00} cores were busy elsewhere");
                            mismatches += Check(implementation, measurement, log);
                            measurement = PointRunner.Run(implementation, threads, duration, pinTo);
                        }

                        mismatches += Check(implementation, measurement, log);
                        log.WriteLine($"  repeat {repeat}/{options.Repeats}  {implementation.Id.PadRight(ImplementationCatalog.IdWidth)} {threads,3} threads  {measurement.OpsPerMillisecond,14:N0} ops/ms   elsewhere {measurement.OtherCores:0.00} cores busy, {measurement.StolenCores:0.00} stolen");
                        if (!samples.TryGetValue((implementation.Id, threads), out List<PointMeasurement>? repeats))
                        {
                            repeats = [];
                            samples.Add((implementation.Id, threads), repeats);
                        }

                        repeats.Add(measurement);
                    }
                }
            }
        }
        finally
        {
            implementations.ForEach(i => i.Dispose());
        }

        return Summarize(options, samples);
    }

    private static int Check(CountingImplementation implementation, PointMeasurement measurement, TextWriter log)
    {
        if (measurement.TotalMatches)
        {
            return 0;
        }

        string verdict = implementation.IsLossy ? "lost adds (documented as lossy)" : "MISMATCH";
        log.WriteLine($"{verdict}: {implementation.Id} at {measurement.Threads} threads read {measurement.Total:N0} but its workers made {measurement.Adds:N0} adds.");
        return implementation.IsLossy ? 0 : 1;
    }

    private static List<PointResult> Summarize(ScalingOptions options, Dictionary<(string Id, int Threads), List<PointMeasurement>> samples)
    {
        var results = new List<PointResult>();
        foreach (string id in options.ImplementationIds)
        {
            double reference = Median(samples[(id, options.Threads[0])]);
            foreach (int threads in options.Threads)
            {
                List<PointMeasurement> repeats = samples[(id, threads)];
                double median = Median(repeats);
                results.Add(new PointResult(
                    id,
                    threads,
                    median,
                    repeats.Min(m => m.OpsPerMillisecond),
                    repeats.Max(m => m.OpsPerMillisecond),
                    median / reference,
                    options.Pin,
                    repeats.Count(m => !m.TotalMatches),
                    repeats.Max(m => m.OtherCores + m.StolenCores)));
            }
        }

        return results;
    }

    private static double Median(List<PointMeasurement> repeats)
    {
        double[] sorted = [.. repeats.Select(m => m.OpsPerMillisecond).Order()];
        int middle = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
