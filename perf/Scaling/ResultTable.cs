namespace ScalableMetrics.Scaling;

/// <summary>Writes the results as a table on the terminal: implementation × threads.</summary>
internal static class ResultTable
{
    public static void Write(TextWriter output, IReadOnlyList<PointResult> results, int referenceThreads)
    {
        int idWidth = ImplementationCatalog.IdWidth;
        output.WriteLine($"{"implementation".PadRight(idWidth)} {"threads",7} {"ops/ms",14} {"ops/ms/thread",14} {"speed-up",9} {"min..max of repeats",27} {"elsewhere",9}");
        output.WriteLine(new string('-', idWidth + 1 + 7 + 1 + 14 + 1 + 14 + 1 + 9 + 1 + 27 + 1 + 9));
        string? previous = null;
        foreach (PointResult result in results)
        {
            if (previous is not null && previous != result.Implementation)
            {
                output.WriteLine();
            }

            previous = result.Implementation;
            string range = $"{result.MinOpsPerMillisecond:N0}..{result.MaxOpsPerMillisecond:N0}";
            string flag = result.Mismatches > 0 ? "  MISMATCH" : string.Empty;
            output.WriteLine($"{result.Implementation.PadRight(idWidth)} {result.Threads,7} {result.OpsPerMillisecond,14:N0} {result.OpsPerMillisecondPerThread,14:N0} {result.Speedup,8:0.00}x {range,27} {result.MaxOtherCores,9:0.00}{flag}");
        }

        output.WriteLine();
        output.WriteLine("elsewhere: the most processors' worth of time that other processes used, or the hypervisor stole, during one repeat (above 0.10, the figure was taken on a busy machine).");
        output.WriteLine($"ops/ms: adds per millisecond, all threads together, median of the repeats; speed-up: over the same implementation at {referenceThreads} thread{(referenceThreads == 1 ? string.Empty : "s")}.");
    }
}
