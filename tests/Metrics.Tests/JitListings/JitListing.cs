using System.Diagnostics;
using System.Globalization;
using System.Numerics;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Text;
using System.Text.RegularExpressions;
using ScalableMetrics.Diagnostics;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Tests.JitListings;

/// <summary>
/// The JIT's listing of the bound adds (<c>DOTNET_JitDisasm</c>), taken in a child process per
/// write path and compared, instruction by instruction, with a checked-in listing beside this
/// file, as <see cref="Platform.AssemblyListing"/> compares the native restartable add with its
/// doc comment: a change to the hot path's machine code is then a reviewed change to a file.
/// </summary>
/// <remarks>
/// <para>The child runs with <c>DOTNET_TieredCompilation=0</c>: each add is compiled once, fully
/// optimized, at its first call, which comes after the registry and its series exist, so every
/// class constructor and thread static the add reads is in place, as at Tier1 in a warm process
/// (the two listings were the same when this was written). Tiered compilation with its default
/// dynamic PGO is not deterministic: the layout of the processor id's refresh, taken once in 64
/// adds, followed how many adds the instrumented tier happened to see, and differed between two
/// runs. Without a profile the code depends only on the IL and the process, which is what a
/// refactor must leave alone; the scaling harness's loop is compiled the same way
/// (<c>AggressiveOptimization</c>).</para>
/// <para>The output depends on the runtime's version and on the processor's instruction sets,
/// so both head the listing. A listing lists every instruction-set family it was taken on (an
/// <c>; isa:</c> and <c>; jit:</c> pair each), where the JIT compiled the same instructions for all
/// of them: so the test checks on each make CI meets (the Intel Xeon with AVX-512 and the AMD EPYC
/// without it that these sessions get compile the bound adds alike), and a family whose
/// instructions differ gets a file of its own (<c>BoundAdds.{path}.{family}.txt</c>). Only a
/// machine whose runtime or instruction sets no listing names skips the test, with the reason
/// (<see cref="JitListingFactAttribute"/>); regenerating there adds its family.</para>
/// </remarks>
internal static partial class JitListing
{
    /// <summary>The environment variable that makes <see cref="AssertMatches"/> rewrite the listing instead of comparing.</summary>
    public const string UpdateVariable = "SCALABLEMETRICS_UPDATE_JIT_LISTINGS";

    /// <summary>How to regenerate the listings, for the file's header and for messages.</summary>
    public const string RegenerateCommand = UpdateVariable + "=1 dotnet test tests/Metrics.Tests -c Release --filter FullyQualifiedName~BoundAddListingTests";

    private const string RuntimeKey = "; runtime: ";
    private const string InstructionSetsKey = "; isa: ";
    private const string JitKey = "; jit: ";

    /// <summary>Whether the tests rewrite the listings (<see cref="UpdateVariable"/> is <c>1</c>).</summary>
    public static bool Updating => Environment.GetEnvironmentVariable(UpdateVariable) == "1";

    /// <summary>The runtime and the platform, as the listing's header records them.</summary>
    public static string Runtime => $"{RuntimeInformation.FrameworkDescription} {RuntimeInformation.RuntimeIdentifier}";

    /// <summary>
    /// The instruction sets the JIT may use here: every hardware intrinsic class of the runtime
    /// whose <c>IsSupported</c> is true (found by reflection, so that a runtime with more classes
    /// lists them too), and the width of <see cref="Vector{T}"/>.
    /// </summary>
    public static string InstructionSets { get; } = ListInstructionSets();

    /// <summary>The folder of the checked-in listings: the one of <paramref name="sourceFile"/>, this file's caller.</summary>
    public static string FolderOf(string sourceFile) => Path.GetDirectoryName(sourceFile)!;

    /// <summary>Why no listing of <paramref name="writePath"/> in <paramref name="folder"/> can be compared here, or null where one can.</summary>
    public static string? SkipReason(WritePath writePath, string folder)
    {
        if (typeof(MetricRegistry).Assembly.GetCustomAttribute<DebuggableAttribute>()?.IsJITOptimizerDisabled == true)
        {
            return "the listings are of the Release build, and this one is not optimized: run with -c Release";
        }

        if (writePath == WritePath.RestartableSequence && !RestartableSequence.IsSupported)
        {
            return $"restartable sequences are not supported here: {RestartableSequence.UnsupportedReason}";
        }

        if (writePath != WritePath.PerThread && !ProcessorId.IsSupported)
        {
            return "the operating system reports no processor id here, so no per-processor write path";
        }

        List<Listing> listings = Listings(writePath, folder);
        if (Updating || listings.Count == 0 || Find(listings) is not null)
        {
            return null; // rewritten, missing (the test says so), or one is for this machine
        }

        if (!listings.Any(listing => listing.Runtime == Runtime))
        {
            return $"the listings were taken on {string.Join(", ", listings.Select(l => l.Runtime).Distinct())}, this is {Runtime}: the JIT's output differs between runtimes (regenerate with {RegenerateCommand})";
        }

        return $"the listings were taken with the instruction sets {string.Join(" and ", listings.SelectMany(l => l.Families).Select(f => $"[{f.InstructionSets}]"))}, this processor has [{InstructionSets}]: the JIT's output may differ between them (regenerate with {RegenerateCommand}, which adds this family)";
    }

    /// <summary>
    /// Takes the listing of the bound adds on <paramref name="writePath"/> in a child process and
    /// asserts that it is the checked-in one for this runtime and instruction sets, instruction by
    /// instruction. Where <see cref="UpdateVariable"/> is <c>1</c>, records it instead: this family
    /// is added to the listing of the same instructions if there is one, else written in the
    /// listing that named it (which then names it alone) or in a file of its own.
    /// </summary>
    public static void AssertMatches(WritePath writePath, string sourceFile)
    {
        string folder = FolderOf(sourceFile);
        (string target, List<string> actual) = Normalize(Disassemble(writePath));
        List<Listing> listings = Listings(writePath, folder);
        Listing? mine = Find(listings);
        if (Updating)
        {
            Record(writePath, folder, listings, mine, new Family(InstructionSets, target), actual);
            return;
        }

        Assert.True(mine is not null, $"no listing of {writePath} in {folder} is for {Runtime} with [{InstructionSets}]: create it with {RegenerateCommand}");
        if (mine.Instructions.SequenceEqual(actual, StringComparer.Ordinal))
        {
            return;
        }

        List<string> expected = mine.Instructions;
        int line = expected.Zip(actual).TakeWhile(pair => pair.First == pair.Second).Count();
        string taken = Path.Combine(Path.GetTempPath(), $"BoundAdds.{writePath}.{Environment.ProcessId}.txt");
        File.WriteAllText(taken, Header(writePath, [new Family(InstructionSets, target)]) + string.Join('\n', actual) + "\n");
        Assert.Fail(
            $"The JIT's code for the bound adds on {writePath} is not the listing in {mine.File}: first difference at line {line + 1} of its instructions, "
            + $"listed \"{(line < expected.Count ? expected[line] : "(end)")}\", compiled \"{(line < actual.Count ? actual[line] : "(end)")}\" "
            + $"(in {Last(actual, line)}). The JIT's listing is in {taken}; if the change is meant, review it and run {RegenerateCommand}.");
    }

    /// <summary>
    /// Keeps the instructions and their operands: drops the JIT's comments and code offsets,
    /// names labels by block alone, and replaces what differs from one process to the next
    /// (addresses, handles and other 64-bit immediates but <see cref="long.MaxValue"/>, the
    /// string-literal token a throw loads) by a placeholder.
    /// </summary>
    /// <returns>The JIT's target line (<c>; Emitting …</c>) and the listing, one instruction or label a line, each method headed by its name.</returns>
    public static (string Target, List<string> Lines) Normalize(string disassembly)
    {
        string target = "(none)";
        var lines = new List<string>();
        foreach (string raw in disassembly.Split('\n'))
        {
            string line = raw.Trim();
            if (MethodRegex().Match(line) is { Success: true } method)
            {
                Assert.True(method.Groups["tier"].Value == "FullOpts", $"{method.Groups["name"].Value} was compiled {method.Groups["tier"].Value}, not FullOpts");
                if (lines.Count > 0)
                {
                    lines.Add(string.Empty);
                }

                lines.Add("method " + method.Groups["name"].Value);
                continue;
            }

            if (line.StartsWith("; Emitting ", StringComparison.Ordinal))
            {
                target = line["; Emitting ".Length..];
            }

            int comment = line.IndexOf(';', StringComparison.Ordinal);
            line = WhitespaceRegex().Replace((comment < 0 ? line : line[..comment]).Trim(), " ");
            if (line.Length == 0)
            {
                continue;
            }

            line = LabelRegex().Replace(line, "IG");
            line = ImmediateRegex().Replace(line, immediate => immediate.Value.Equals("0x7FFFFFFFFFFFFFFF", StringComparison.OrdinalIgnoreCase) ? immediate.Value : "<address>");
            if (line == "call [CORINFO_HELP_STRCNS]")
            {
                // The lazy string literal's token (the throw's parameter name) is its place in the assembly's metadata, not code.
                for (int back = lines.Count - 1; back >= Math.Max(0, lines.Count - 2); back--)
                {
                    lines[back] = StringTokenRegex().Replace(lines[back], "${move}<token>");
                }
            }

            lines.Add(line);
        }

        Assert.True(lines.Count(line => line.StartsWith("method ", StringComparison.Ordinal)) == 3, $"the child listed {lines.Count(line => line.StartsWith("method ", StringComparison.Ordinal))} methods, not the 3 it calls:\n{disassembly}");
        return (target, lines);
    }

    private static string Disassemble(WritePath writePath)
    {
        string output = Path.Combine(Path.GetTempPath(), $"jit-{writePath}-{Environment.ProcessId}-{Guid.NewGuid():N}.txt");
        var start = new ProcessStartInfo(DotnetHost(), ["exec", typeof(BoundAddChild).Assembly.Location, BoundAddChild.Verb, writePath.ToString()])
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (string name in start.Environment.Keys.Where(IsJitSetting).ToList())
        {
            start.Environment.Remove(name);
        }

        start.Environment["DOTNET_TieredCompilation"] = "0";
        start.Environment["DOTNET_JitDisasm"] = BoundAddChild.Methods;
        start.Environment["DOTNET_JitStdOutFile"] = output;
        try
        {
            using Process child = Process.Start(start)!;
            Task<string> error = child.StandardError.ReadToEndAsync();
            string standardOutput = child.StandardOutput.ReadToEnd();
            Assert.True(child.WaitForExit(TimeSpan.FromSeconds(60)), "the child did not exit within 60 s");
            Assert.True(child.ExitCode == 0, $"the child exited with {child.ExitCode}: {standardOutput}{error.Result}");
            Assert.True(File.Exists(output), $"the JIT wrote no listing to {output}: {standardOutput}{error.Result}");
            return File.ReadAllText(output);
        }
        finally
        {
            File.Delete(output);
        }
    }

    // Settings the child must not inherit: they change what the JIT compiles or where it writes.
    private static bool IsJitSetting(string name) =>
        (name.StartsWith("DOTNET_", StringComparison.OrdinalIgnoreCase) || name.StartsWith("COMPlus_", StringComparison.OrdinalIgnoreCase))
        && (name.Contains("_Jit", StringComparison.OrdinalIgnoreCase) || name.Contains("_Tiered", StringComparison.OrdinalIgnoreCase)
            || name.Contains("_TC_", StringComparison.OrdinalIgnoreCase) || name.Contains("_ReadyToRun", StringComparison.OrdinalIgnoreCase));

    // The dotnet host that runs the tests: the SDK names it in DOTNET_HOST_PATH; otherwise the one
    // above the shared runtime this process runs on.
    internal static string DotnetHost()
    {
        string executable = OperatingSystem.IsWindows() ? "dotnet.exe" : "dotnet";
        if (Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host && File.Exists(host))
        {
            return host;
        }

        if (Environment.ProcessPath is { } process && Path.GetFileName(process) == executable)
        {
            return process;
        }

        return Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", "..", executable));
    }

    private static string Header(WritePath writePath, IEnumerable<Family> families) => string.Create(CultureInfo.InvariantCulture, $"""
        ; The bound counter add and histogram record on the {writePath} write path, as the JIT compiles them
        ; (DOTNET_JitDisasm={BoundAddChild.Methods}; DOTNET_TieredCompilation=0),
        ; without addresses, handles and code offsets. Compared by BoundAddListingTests on the runtime
        ; below with any of the instruction-set families below (the same instructions for each), skipped
        ; elsewhere; regenerate, or add this machine's family, with
        ; {RegenerateCommand}
        {RuntimeKey}{Runtime}
        {string.Join('\n', families.Select(f => $"{InstructionSetsKey}{f.InstructionSets}\n{JitKey}{f.Target}"))}


        """).Replace("\r\n", "\n", StringComparison.Ordinal);

    // Every checked-in listing of the write path: BoundAdds.{path}.txt and any BoundAdds.{path}.{family}.txt.
    private static List<Listing> Listings(WritePath writePath, string folder)
    {
        if (!Directory.Exists(folder))
        {
            return [];
        }

        return [.. Directory.GetFiles(folder, $"BoundAdds.{writePath}.*txt")
            .Where(file => Path.GetFileName(file) is { } name && (name == $"BoundAdds.{writePath}.txt" || name.StartsWith($"BoundAdds.{writePath}.", StringComparison.Ordinal)))
            .Order(StringComparer.Ordinal)
            .Select(Read)];
    }

    private static Listing Read(string file)
    {
        string[] lines = File.ReadAllLines(file);
        string[] header = lines.TakeWhile(line => line.StartsWith(';')).ToArray();
        var families = new List<Family>();
        for (int i = 0; i < header.Length; i++)
        {
            if (header[i].StartsWith(InstructionSetsKey, StringComparison.Ordinal))
            {
                string target = i + 1 < header.Length && header[i + 1].StartsWith(JitKey, StringComparison.Ordinal) ? header[i + 1][JitKey.Length..] : string.Empty;
                families.Add(new Family(header[i][InstructionSetsKey.Length..], target));
            }
        }

        string? runtime = header.FirstOrDefault(line => line.StartsWith(RuntimeKey, StringComparison.Ordinal))?[RuntimeKey.Length..];
        return new Listing(file, runtime ?? string.Empty, families, [.. lines.SkipWhile(line => line.StartsWith(';') || line.Length == 0)]);
    }

    // The listing for this runtime that names this processor's instruction sets.
    private static Listing? Find(List<Listing> listings) =>
        listings.FirstOrDefault(listing => listing.Runtime == Runtime && listing.Families.Any(family => family.InstructionSets == InstructionSets));

    private static void Record(WritePath writePath, string folder, List<Listing> listings, Listing? mine, Family family, List<string> actual)
    {
        string Write(string file, IEnumerable<Family> families)
        {
            File.WriteAllText(file, Header(writePath, families) + string.Join('\n', actual) + "\n");
            return file;
        }

        // The same instructions elsewhere: this family joins that listing (and leaves any other).
        if (listings.FirstOrDefault(listing => listing.Runtime == Runtime && listing.Instructions.SequenceEqual(actual, StringComparer.Ordinal)) is { } same)
        {
            if (mine is not null && mine != same)
            {
                Write(mine.File, mine.Families.Where(f => f.InstructionSets != family.InstructionSets));
            }

            Write(same.File, same.Families.Where(f => f.InstructionSets != family.InstructionSets).Append(family));
            return;
        }

        // New instructions: where this family was listed (the code changed), it is listed alone;
        // otherwise in the plain file if none is there, else in a file of its own.
        string file = mine?.File
            ?? (listings.Count == 0 ? Path.Combine(folder, $"BoundAdds.{writePath}.txt")
                : Path.Combine(folder, $"BoundAdds.{writePath}.{FamilyName(family.InstructionSets)}.txt"));
        Write(file, [family]);
    }

    // A file name for an instruction-set family: the widest vector extension it has, and a short hash of the whole list.
    private static string FamilyName(string instructionSets) =>
        (instructionSets.Contains("Avx512F", StringComparison.Ordinal) ? "avx512" : instructionSets.Contains("Avx2", StringComparison.Ordinal) ? "avx2" : "base")
        + "-" + Convert.ToHexStringLower(System.Security.Cryptography.SHA256.HashData(Encoding.UTF8.GetBytes(instructionSets)))[..8];

    // The method whose listing holds line index (for the failure message).
    private static string Last(List<string> lines, int index) =>
        lines.Take(Math.Min(index + 1, lines.Count)).LastOrDefault(line => line.StartsWith("method ", StringComparison.Ordinal)) ?? "(no method)";

    private static string ListInstructionSets()
    {
        var names = new List<string>();
        foreach (Type type in typeof(Vector128).Assembly.GetExportedTypes())
        {
            // The nested X64 and Arm64 classes add nothing on a 64-bit process: their parents' support implies theirs.
            if (type.Namespace is "System.Runtime.Intrinsics.X86" or "System.Runtime.Intrinsics.Arm"
                && type.Name is not ("X64" or "Arm64")
                && type.GetProperty("IsSupported", BindingFlags.Public | BindingFlags.Static) is { } isSupported
                && isSupported.PropertyType == typeof(bool)
                && (bool)isSupported.GetValue(null)!)
            {
                names.Add(type.FullName![(type.Namespace.Length + 1)..].Replace('+', '.'));
            }
        }

        names.Sort(StringComparer.Ordinal);
        names.Add($"Vector<T>={Vector<byte>.Count * 8}");
        return string.Join(' ', names);
    }

    [GeneratedRegex(@"^; Assembly listing for method (?<name>.+) \((?<tier>[^()]+)\)$")]
    private static partial Regex MethodRegex();

    [GeneratedRegex(@"\s+")]
    private static partial Regex WhitespaceRegex();

    // The JIT names blocks G_M<method>_IG<n>; the method part is 000 in a release runtime, but say so nowhere.
    [GeneratedRegex(@"\bG_M\d+_IG")]
    private static partial Regex LabelRegex();

    // A hexadecimal immediate wider than 32 bits: in this code an address or a handle (see Normalize).
    [GeneratedRegex(@"\b0x[0-9A-Fa-f]{9,16}\b")]
    private static partial Regex ImmediateRegex();

    [GeneratedRegex(@"^(?<move>mov e[a-z]+, )(?:0x[0-9A-Fa-f]+|\d+)$")]
    private static partial Regex StringTokenRegex();

    // One instruction-set family a listing was taken on: the sets, and the JIT's target line.
    private sealed record Family(string InstructionSets, string Target);

    // A checked-in listing: its file, runtime, the families it was taken on, and its instructions.
    private sealed record Listing(string File, string Runtime, List<Family> Families, List<string> Instructions);
}
