using System.Runtime.InteropServices;

namespace ScalableMetrics.Scaling;

/// <summary>The machine a run measured, printed with every run and written into the chart's title.</summary>
internal sealed record MachineInfo(string Processor, int LogicalCores, string OperatingSystem, string Runtime)
{
    public static MachineInfo Current() => new(
        ReadProcessorModel(),
        Environment.ProcessorCount,
        RuntimeInformation.OSDescription,
        $"{RuntimeInformation.FrameworkDescription} {RuntimeInformation.ProcessArchitecture}");

    /// <summary>One line: processor, cores, system and runtime.</summary>
    public override string ToString() => $"{Processor}, {LogicalCores} logical cores, {OperatingSystem}, {Runtime}";

    private static string ReadProcessorModel()
    {
        const string CpuInfo = "/proc/cpuinfo";
        if (File.Exists(CpuInfo))
        {
            foreach (string line in File.ReadLines(CpuInfo))
            {
                if (line.StartsWith("model name", StringComparison.Ordinal) && line.IndexOf(':', StringComparison.Ordinal) is int colon and >= 0)
                {
                    return line[(colon + 1)..].Trim();
                }
            }
        }

        return $"unknown {RuntimeInformation.ProcessArchitecture} processor";
    }
}
