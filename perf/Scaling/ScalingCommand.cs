using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Scaling;

/// <summary>The harness's one command: print the machine, measure, then write the table, the CSV and the chart.</summary>
internal static class ScalingCommand
{
    /// <summary>Exit code when a total did not match the adds made (1 is System.CommandLine's, for a command line it could not parse).</summary>
    public const int MismatchExitCode = 2;

    /// <summary>Exit code when the run could not be made or its output not written (e.g. no gnuplot).</summary>
    public const int FailureExitCode = 3;

    public static int Run(ScalingOptions options, TextWriter output, TextWriter error)
    {
        var machine = MachineInfo.Current();
        output.WriteLine($"machine:   {machine}");
        output.WriteLine($"counter:   ProcessorId.IsSupported={ProcessorId.IsSupported}, PartitionCount={ProcessorId.PartitionCount}, PerProcessor registry strategy={new MetricRegistry().Strategy}");
        output.WriteLine($"           RestartableSequence.IsSupported={RestartableSequence.IsSupported}{(RestartableSequence.IsSupported ? $", PartitionCount={RestartableSequence.PartitionCount}" : $" ({RestartableSequence.UnsupportedReason}): 'partitioned' adds with Interlocked, as 'partitioned-interlocked' does")}");
        output.WriteLine($"run:       threads {string.Join(",", options.Threads)}; {options.SecondsPerPoint:0.###} s per point; {options.Repeats} repeat(s), median reported; threads {(options.Pin ? "PINNED (sched_setaffinity)" : "not pinned")}{(options.MaxBusyElsewhere is { } max ? $"; repeats retaken while more than {max:0.##} cores were busy elsewhere" : string.Empty)}");
        output.WriteLine($"implementations: {string.Join(", ", options.ImplementationIds)}");
        output.WriteLine();

        IReadOnlyList<PointResult> results;
        int mismatches;
        try
        {
            results = ScalingRun.Measure(options, output, out mismatches);
        }
        catch (Exception e) when (e is InvalidOperationException or PlatformNotSupportedException)
        {
            error.WriteLine($"error: {e.Message}");
            return FailureExitCode;
        }

        output.WriteLine();
        ResultTable.Write(output, results, options.Threads[0]);
        int exitCode = 0;
        try
        {
            if (options.CsvPath is { } csv)
            {
                CsvResults.Write(csv, results);
                output.WriteLine($"wrote {csv}");
            }

            if (options.SvgPath is { } svg)
            {
                GnuplotChart.Write(svg, results, machine.ToString());
                output.WriteLine($"wrote {svg}");
            }
        }
        catch (Exception e) when (e is InvalidOperationException or IOException or UnauthorizedAccessException)
        {
            error.WriteLine($"error: {e.Message}");
            exitCode = FailureExitCode;
        }

        if (mismatches > 0)
        {
            error.WriteLine($"error: {mismatches} measurement(s) read a total different from the adds made.");
            return MismatchExitCode;
        }

        return exitCode;
    }
}
