using System.Runtime.InteropServices;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Interop;

namespace ScalableMetrics.Tests.Platform;

/// <summary>
/// Pins the calling thread to one processor and checks that it runs there, for tests that need a
/// thread to be on a given processor, or to move: <c>sched_setaffinity(0, …)</c> through the
/// core's <see cref="Libc"/>, as perf/Scaling's ThreadAffinity pins, then
/// <c>sched_getcpu</c> until it reports the processor. Linux only.
/// </summary>
internal static unsafe class ThreadPinning
{
    // cpu_set_t is 1024 bits in glibc; the kernel accepts any multiple of the word size.
    private const int MaskWords = 1024 / 64;

    /// <summary>The processors the process may run on (its main thread's mask), ascending; empty where pinning is unavailable.</summary>
    public static IReadOnlyList<int> AllowedProcessors { get; } = ReadAllowedProcessors();

    // Lazy, so that the probe's thread does not wait on this class's initializer.
    private static readonly Lazy<string?> s_unavailableReason = new(Probe);

    /// <summary>Why a test cannot move a thread between two processors here; null where it can (a probe thread was pinned to two and ran on each).</summary>
    public static string? UnavailableReason => s_unavailableReason.Value;

    /// <summary>Pins the calling thread to <paramref name="processor"/> and fails unless the processor id the operating system reports becomes it.</summary>
    public static void Pin(int processor)
    {
        string? failure = TryPin(processor);
        Assert.True(failure is null, failure);
    }

    private static string? TryPin(int processor)
    {
        ulong* mask = stackalloc ulong[MaskWords];
        new Span<ulong>(mask, MaskWords).Clear();
        mask[processor / 64] = 1UL << (processor % 64);
        if (Libc.SchedSetAffinity(0, MaskWords * sizeof(ulong), mask) != 0)
        {
            return $"sched_setaffinity to processor {processor} failed: errno {Marshal.GetLastPInvokeError()}";
        }

        // The kernel moves the thread before the call returns; a few yields cover a slow move.
        int reported = -1;
        for (int attempt = 0; attempt < 1_000 && reported != processor; attempt++)
        {
            reported = ProcessorId.ReadFromOperatingSystem();
            if (reported != processor)
            {
                Thread.Yield();
            }
        }

        return reported == processor ? null : $"pinned to processor {processor}, the thread still reports processor {reported}";
    }

    private static IReadOnlyList<int> ReadAllowedProcessors()
    {
        if (!OperatingSystem.IsLinux() || !Libc.IsAvailable)
        {
            return [];
        }

        ulong* mask = stackalloc ulong[MaskWords];
        if (Libc.SchedGetAffinity(Environment.ProcessId, MaskWords * sizeof(ulong), mask) != 0)
        {
            return [];
        }

        return [.. Enumerable.Range(0, MaskWords * 64).Where(cpu => (mask[cpu / 64] & (1UL << (cpu % 64))) != 0)];
    }

    private static string? Probe()
    {
        if (!OperatingSystem.IsLinux() || !Libc.IsAvailable)
        {
            return "pinning a thread to a processor needs Linux (sched_setaffinity in libc)";
        }

        if (AllowedProcessors.Count < 2)
        {
            return $"moving a thread between processors needs two that the process may run on; it may run on {AllowedProcessors.Count}";
        }

        (int first, int second) = (AllowedProcessors[0], AllowedProcessors[1]);
        string? failure = null;
        var probe = new Thread(() => failure = TryPin(first) ?? TryPin(second));
        probe.Start();
        probe.Join();
        return failure is null ? null : $"a thread could not be pinned here: {failure}";
    }
}
