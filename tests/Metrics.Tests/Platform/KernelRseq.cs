using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace ScalableMetrics.Tests.Platform;

/// <summary>
/// What the kernel and glibc say about restartable sequences, asked without the core's code
/// (which reads glibc's <c>__rseq_offset</c> and <c>__rseq_size</c>): the kernel through
/// <c>rseq(2)</c> itself, glibc through its version and tunables.
/// Linux x86-64 only.
/// </summary>
[SupportedOSPlatform("linux")]
internal static partial class KernelRseq
{
    /// <summary>What <see cref="NewThreadRegistration"/> returns where the kernel holds an area for the thread.</summary>
    public const string Registered = "registered";

    private const nint RseqSyscallX64 = 334;
    private const nint FlagUnregister = 1;
    private const nint AreaSize = 32;
    private const nint Signature = 0x53053053;
    private const int EInval = 22;
    private const int ENoSys = 38;

    /// <summary>
    /// Whether the kernel holds an rseq area for a new thread of this process, as <c>rseq(2)</c>
    /// answers a registration of an area of our own: EINVAL where another area is registered
    /// already, success where none was (undone at once), ENOSYS where the kernel has no rseq.
    /// </summary>
    /// <returns><see cref="Registered"/>, or what the kernel answered instead.</returns>
    public static unsafe string NewThreadRegistration()
    {
        void* area = NativeMemory.AlignedAlloc((nuint)AreaSize, (nuint)AreaSize);
        try
        {
            new Span<byte>(area, (int)AreaSize).Clear();
            string answer = "not asked";
            var thread = new Thread(() =>
            {
                nint result = Syscall(RseqSyscallX64, (nint)area, AreaSize, 0, Signature);
                int errno = Marshal.GetLastPInvokeError();
                if (result == 0)
                {
                    Syscall(RseqSyscallX64, (nint)area, AreaSize, FlagUnregister, Signature);
                    answer = "not registered: the kernel took an area of the test's own";
                }
                else
                {
                    answer = errno switch
                    {
                        EInval => Registered,
                        ENoSys => "the kernel has no rseq (ENOSYS)",
                        _ => $"rseq(2) answered errno {errno}",
                    };
                }
            });
            thread.Start();
            thread.Join();
            return answer;
        }
        finally
        {
            NativeMemory.AlignedFree(area);
        }
    }

    /// <summary>The version of glibc, from <c>gnu_get_libc_version</c>; null where the C library is not glibc.</summary>
    public static Version? GlibcVersion()
    {
        try
        {
            return Version.TryParse(Marshal.PtrToStringUTF8(GnuGetLibcVersion()), out Version? version) ? version : null;
        }
        catch (EntryPointNotFoundException)
        {
            return null;
        }
    }

    /// <summary>Whether <c>GLIBC_TUNABLES</c> turns glibc's rseq registration off.</summary>
    public static bool GlibcTunableTurnsRseqOff() =>
        (Environment.GetEnvironmentVariable("GLIBC_TUNABLES") ?? string.Empty).Split(':').Contains("glibc.pthread.rseq=0");

    [LibraryImport("libc", EntryPoint = "syscall", SetLastError = true)]
    private static partial nint Syscall(nint number, nint area, nint length, nint flags, nint signature);

    [LibraryImport("libc", EntryPoint = "gnu_get_libc_version")]
    private static partial nint GnuGetLibcVersion();
}
