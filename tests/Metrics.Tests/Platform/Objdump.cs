using System.Diagnostics;

namespace ScalableMetrics.Tests.Platform;

/// <summary>Runs GNU objdump on raw x86-64 bytes.</summary>
internal static class Objdump
{
    public static string? Path { get; } = (Environment.GetEnvironmentVariable("PATH") ?? string.Empty)
        .Split(System.IO.Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
        .Select(directory => System.IO.Path.Combine(directory, "objdump"))
        .FirstOrDefault(File.Exists);

    /// <summary>Disassembles <paramref name="code"/> (Intel syntax, offsets from 0) into (offset, bytes, instruction) lines, objdump's <c>#</c> comments left out.</summary>
    public static List<(int Offset, string Bytes, string Instruction)> Disassemble(ReadOnlySpan<byte> code)
    {
        string file = System.IO.Path.GetTempFileName();
        try
        {
            File.WriteAllBytes(file, code.ToArray());
            var start = new ProcessStartInfo(Path!, ["-D", "-b", "binary", "-m", "i386:x86-64", "-M", "intel", "-w", file])
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            using Process process = Process.Start(start)!;
            string output = process.StandardOutput.ReadToEnd();
            process.WaitForExit();
            Assert.True(process.ExitCode == 0, $"objdump failed: {process.StandardError.ReadToEnd()}");
            return AssemblyListing.Parse(output);
        }
        finally
        {
            File.Delete(file);
        }
    }
}
