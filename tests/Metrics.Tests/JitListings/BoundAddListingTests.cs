using System.Runtime.CompilerServices;
using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Tests.JitListings;

/// <summary>
/// The bound counter add and histogram record keep their machine code: the JIT's listing of
/// <see cref="CounterSeries{TValue}.Add"/> of a <see cref="CounterSeries"/>, <see cref="CounterSeries.Increment"/> and
/// <see cref="HistogramSeries.Record(double)"/>, in a process on each write path, is the
/// checked-in <c>BoundAdds.&lt;WritePath&gt;.txt</c> beside this file. Regenerate with
/// <see cref="JitListing.RegenerateCommand"/>.
/// </summary>
public class BoundAddListingTests
{
    [JitListingFact(WritePath.RestartableSequence)]
    public void TheRestartableAddsCompileToTheirListing() => AssertMatches(WritePath.RestartableSequence);

    [JitListingFact(WritePath.InterlockedProcessorId)]
    public void TheInterlockedAddsCompileToTheirListing() => AssertMatches(WritePath.InterlockedProcessorId);

    [JitListingFact(WritePath.PerThread)]
    public void ThePerThreadAddsCompileToTheirListing() => AssertMatches(WritePath.PerThread);

    [Fact]
    public void NormalizingKeepsInstructionsAndDropsWhatDiffersBetweenProcesses()
    {
        const string Disassembly = """
            ; Assembly listing for method ScalableMetrics.CounterSeries:Add(long):this (FullOpts)
            ; Emitting BLENDED_CODE for generic X64 + VEX + EVEX on Unix
            ; FullOpts code

            G_M000_IG01:                ;; offset=0x0000
                   push     rbp
                   mov      rdi, 0x7F31D62A0D68      ; a handle
                   mov      rcx, 0x7FFFFFFFFFFFFFFF
                   cmp      dword ptr [(reloc 0x7f31d62cec80)], 0
                   jne      G_M000_IG02
                   mov      qword ptr [rbp-0x28], rax

            G_M000_IG02:                ;; offset=0x0017
                   mov      edi, 145
                   mov      rsi, 0x7FD76BD54968
                   call     [CORINFO_HELP_STRCNS]
                   ret

            ; Total bytes of code 32
            """;

        (string target, List<string> lines) = JitListing.Normalize(Disassembly + "\n" + Disassembly.Replace("Add(long)", "Increment()", StringComparison.Ordinal) + "\n" + Disassembly.Replace("CounterSeries:Add(long)", "HistogramSeries:Record(double)", StringComparison.Ordinal));

        Assert.Equal("BLENDED_CODE for generic X64 + VEX + EVEX on Unix", target);
        Assert.Equal(
            [
                "method ScalableMetrics.CounterSeries:Add(long):this",
                "IG01:",
                "push rbp",
                "mov rdi, <address>",
                "mov rcx, 0x7FFFFFFFFFFFFFFF",
                "cmp dword ptr [(reloc <address>)], 0",
                "jne IG02",
                "mov qword ptr [rbp-0x28], rax",
                "IG02:",
                "mov edi, <token>",
                "mov rsi, <address>",
                "call [CORINFO_HELP_STRCNS]",
                "ret",
            ],
            lines.Take(13));
    }

    [Fact]
    public void AListingIsComparedOnEveryInstructionSetFamilyItNamesAndSkippedElsewhere()
    {
        string folder = Directory.CreateTempSubdirectory("listings").FullName;
        try
        {
            string file = Path.Combine(folder, "BoundAdds.PerThread.txt");
            string Listing(params string[] families) =>
                $"; runtime: {JitListing.Runtime}\n" + string.Concat(families.Select(f => $"; isa: {f}\n; jit: some target\n")) + "\nmethod M\nret\n";

            File.WriteAllText(file, Listing("Sse2 Vector<T>=128", JitListing.InstructionSets));
            Assert.Null(JitListing.SkipReason(WritePath.PerThread, folder));

            File.WriteAllText(file, Listing("Sse2 Vector<T>=128", "Avx2 Vector<T>=256 (another make)"));
            string? reason = JitListing.SkipReason(WritePath.PerThread, folder);
            Assert.NotNull(reason);
            Assert.Contains("[Sse2 Vector<T>=128] and [Avx2 Vector<T>=256 (another make)]", reason, StringComparison.Ordinal);

            // A family of its own, in a file of its own, is found too.
            File.WriteAllText(Path.Combine(folder, "BoundAdds.PerThread.avx2-12345678.txt"), Listing(JitListing.InstructionSets));
            Assert.Null(JitListing.SkipReason(WritePath.PerThread, folder));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    private static void AssertMatches(WritePath writePath, [CallerFilePath] string sourceFile = "") => JitListing.AssertMatches(writePath, sourceFile);
}
