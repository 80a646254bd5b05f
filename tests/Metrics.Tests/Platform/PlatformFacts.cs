using System.Runtime.InteropServices;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Tests.Platform;

/// <summary>A fact that runs only on Linux; elsewhere it is skipped with that reason.</summary>
public sealed class LinuxFactAttribute : FactAttribute
{
    public LinuxFactAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "needs Linux (mmap, /proc/self/maps)";
        }
    }
}

/// <summary>A fact that runs only where the process adds through restartable sequences; elsewhere it is skipped with the reason given by the core.</summary>
public sealed class RseqFactAttribute : FactAttribute
{
    public RseqFactAttribute()
    {
        if (!RestartableSequence.IsSupported)
        {
            Skip = $"restartable sequences are not supported here: {RestartableSequence.UnsupportedReason}";
        }
    }
}

/// <summary>A fact that needs GNU <c>objdump</c> on the PATH, on x86-64; skipped with the reason where it is missing.</summary>
public sealed class ObjdumpFactAttribute : FactAttribute
{
    public ObjdumpFactAttribute()
    {
        if (Objdump.Path is null)
        {
            Skip = "objdump (binutils) is not on the PATH: install it with `bash scripts/install-packages.sh binutils`";
        }
        else if (RuntimeInformation.OSArchitecture != Architecture.X64)
        {
            Skip = "the x86-64 disassembler of objdump is only sure to be there on x86-64";
        }
    }
}

/// <summary>A theory that needs GNU <c>objdump</c> on the PATH, on x86-64; skipped with the reason where it is missing.</summary>
public sealed class ObjdumpTheoryAttribute : TheoryAttribute
{
    public ObjdumpTheoryAttribute()
    {
        Skip = new ObjdumpFactAttribute().Skip;
    }
}

/// <summary>A fact that needs restartable sequences and at least two processors the process may run on (to pin one thread past a partition count); skipped with the reason elsewhere.</summary>
public sealed class RseqTwoProcessorsFactAttribute : FactAttribute
{
    public RseqTwoProcessorsFactAttribute()
    {
        Skip = new RseqFactAttribute().Skip;
        if (Skip is null && OperatingSystem.IsLinux() && System.Numerics.BitOperations.PopCount((ulong)(long)System.Diagnostics.Process.GetCurrentProcess().ProcessorAffinity) < 2)
        {
            Skip = "needs two processors among the first 64 that the process may run on";
        }
    }
}
