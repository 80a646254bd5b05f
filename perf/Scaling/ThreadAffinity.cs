using System.Runtime.InteropServices;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Interop;

namespace ScalableMetrics.Scaling;

/// <summary>
/// Pins the calling thread to one processor, after seed 004 (Thompson: pinned threads give
/// steady, higher throughput). Linux only: <c>sched_setaffinity(0, size, mask)</c>, where pid 0
/// means the calling thread.
/// </summary>
/// <remarks>
/// libc is the core's one binding (<see cref="Libc"/>); this class only builds the masks.
/// </remarks>
internal static unsafe class ThreadAffinity
{
    // cpu_set_t is 1024 bits in glibc; the kernel accepts any multiple of the word size.
    private const int MaskWords = 1024 / 64;

    /// <summary>Whether threads can be pinned here.</summary>
    public static bool IsSupported => OperatingSystem.IsLinux() && Libc.IsAvailable;

    /// <summary>The processors this process may run on (its main thread's mask; pid 0 would read only the calling thread's), in ascending order.</summary>
    /// <exception cref="PlatformNotSupportedException">Not Linux, or libc's affinity calls were not found.</exception>
    public static IReadOnlyList<int> AllowedProcessors()
    {
        ThrowIfUnsupported();
        ulong* mask = stackalloc ulong[MaskWords];
        if (Libc.SchedGetAffinity(Environment.ProcessId, MaskWords * sizeof(ulong), mask) != 0)
        {
            throw new InvalidOperationException($"sched_getaffinity failed: errno {Marshal.GetLastSystemError()}.");
        }

        var processors = new List<int>();
        for (int cpu = 0; cpu < MaskWords * 64; cpu++)
        {
            if ((mask[cpu / 64] & (1UL << (cpu % 64))) != 0)
            {
                processors.Add(cpu);
            }
        }

        return processors;
    }

    /// <summary>Restricts the calling thread to <paramref name="processor"/>.</summary>
    /// <exception cref="InvalidOperationException">The kernel refused (errno in the message).</exception>
    public static void PinCurrentThread(int processor)
    {
        ThrowIfUnsupported();
        ArgumentOutOfRangeException.ThrowIfNegative(processor);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(processor, MaskWords * 64);
        ulong* mask = stackalloc ulong[MaskWords];
        new Span<ulong>(mask, MaskWords).Clear();
        mask[processor / 64] = 1UL << (processor % 64);
        if (Libc.SchedSetAffinity(0, MaskWords * sizeof(ulong), mask) != 0)
        {
            throw new InvalidOperationException($"sched_setaffinity to processor {processor} failed: errno {Marshal.GetLastSystemError()}.");
        }
    }

    private static void ThrowIfUnsupported()
    {
        if (!IsSupported)
        {
            throw new PlatformNotSupportedException("--pin needs Linux (sched_setaffinity in libc).");
        }
    }
}
