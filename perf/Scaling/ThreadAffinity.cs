using System.Runtime.InteropServices;

namespace ScalableMetrics.Scaling;

/// <summary>
/// Pins the calling thread to one processor, after seed 004 (Thompson: pinned threads give
/// steady, higher throughput). Linux only: <c>sched_setaffinity(0, size, mask)</c>, where pid 0
/// means the calling thread.
/// </summary>
/// <remarks>
/// libc is bound through <see cref="NativeLibrary"/> and function pointers, as the core binds
/// <c>sched_getcpu</c>, because the name "libc" alone resolves to a linker script on glibc systems.
/// </remarks>
internal static unsafe class ThreadAffinity
{
    // cpu_set_t is 1024 bits in glibc; the kernel accepts any multiple of the word size.
    private const int MaskWords = 1024 / 64;

    private static readonly delegate* unmanaged<int, nuint, ulong*, int> s_setAffinity;
    private static readonly delegate* unmanaged<int, nuint, ulong*, int> s_getAffinity;

    static ThreadAffinity()
    {
        if (!OperatingSystem.IsLinux())
        {
            return;
        }

        foreach (string library in (string[])["libc.so.6", "libc", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"])
        {
            if (NativeLibrary.TryLoad(library, out IntPtr handle)
                && NativeLibrary.TryGetExport(handle, "sched_setaffinity", out IntPtr set)
                && NativeLibrary.TryGetExport(handle, "sched_getaffinity", out IntPtr get))
            {
                s_setAffinity = (delegate* unmanaged<int, nuint, ulong*, int>)set;
                s_getAffinity = (delegate* unmanaged<int, nuint, ulong*, int>)get;
                return;
            }
        }
    }

    /// <summary>Whether threads can be pinned here.</summary>
    public static bool IsSupported => s_setAffinity != null;

    /// <summary>The processors this process may run on, in ascending order.</summary>
    /// <exception cref="PlatformNotSupportedException">Not Linux, or libc's affinity calls were not found.</exception>
    public static IReadOnlyList<int> AllowedProcessors()
    {
        ThrowIfUnsupported();
        ulong* mask = stackalloc ulong[MaskWords];
        if (s_getAffinity(0, MaskWords * sizeof(ulong), mask) != 0)
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
        if (s_setAffinity(0, MaskWords * sizeof(ulong), mask) != 0)
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
