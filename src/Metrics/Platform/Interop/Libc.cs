using System.Runtime.InteropServices;

namespace ScalableMetrics.Platform.Interop;

/// <summary>
/// The one binding to the C library: every native call the project makes on Linux goes through
/// here, after the runtime's <c>src/libraries/Common/src/Interop/</c> (one place that knows the
/// library's name, its calling conventions and its fallbacks).
/// </summary>
/// <remarks>
/// <para>Declared with <see cref="LibraryImportAttribute"/> under the logical name
/// <see cref="LibraryName"/>, which a resolver maps to the first C library that loads:
/// <c>libc.so.6</c> (glibc; the bare name "libc" resolves to a linker script there) or musl's
/// <c>libc.musl-*.so.1</c>. The hot call (<c>sched_getcpu</c>) is a
/// <see cref="SuppressGCTransitionAttribute"/> function pointer instead, null where the export is
/// missing, so that a caller tests support with one comparison.</para>
/// <para>Members other than the data exports may be called only on Linux; all are thread-safe.</para>
/// </remarks>
internal static unsafe partial class Libc
{
    /// <summary>The logical library name the declarations use; see the remarks.</summary>
    internal const string LibraryName = "libc";

    /// <summary><c>PROT_READ</c>, <c>PROT_WRITE</c>, <c>PROT_EXEC</c> (<c>include/uapi/asm-generic/mman-common.h</c>).</summary>
    internal const int ProtRead = 1, ProtWrite = 2, ProtExec = 4;

    /// <summary><c>MAP_PRIVATE</c>, <c>MAP_ANONYMOUS</c> (x86-64 and arm64 values).</summary>
    internal const int MapPrivate = 2, MapAnonymous = 0x20;

    /// <summary><c>MAP_FAILED</c>: what <see cref="MMap"/> returns on failure.</summary>
    internal const nint MapFailed = -1;

    /// <summary><c>_SC_NPROCESSORS_CONF</c> in glibc's and musl's <c>unistd.h</c>.</summary>
    internal const int ScNProcessorsConf = 83;

    /// <summary><c>CLOCK_THREAD_CPUTIME_ID</c> (<c>include/uapi/linux/time.h</c>): the calling thread's time on a processor.</summary>
    internal const int ClockThreadCpuTime = 3;

    private static readonly nint s_handle;
    private static readonly delegate* unmanaged[Cdecl, SuppressGCTransition]<int> s_schedGetCpu;

    static Libc()
    {
        if (!OperatingSystem.IsLinux())
        {
            return;
        }

        foreach (string candidate in (string[])["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "libc.so"])
        {
            if (NativeLibrary.TryLoad(candidate, out s_handle))
            {
                break;
            }
        }

        if (s_handle != 0)
        {
            NativeLibrary.SetDllImportResolver(typeof(Libc).Assembly, (name, _, _) => name == LibraryName ? s_handle : 0);
            if (NativeLibrary.TryGetExport(s_handle, "sched_getcpu", out nint schedGetCpu))
            {
                s_schedGetCpu = (delegate* unmanaged[Cdecl, SuppressGCTransition]<int>)schedGetCpu;
            }
        }
    }

    /// <summary>Whether a C library was loaded (Linux only).</summary>
    internal static bool IsAvailable => s_handle != 0;

    /// <summary><c>int sched_getcpu(void)</c>, without a GC transition; null where not exported.</summary>
    internal static delegate* unmanaged[Cdecl, SuppressGCTransition]<int> SchedGetCpu => s_schedGetCpu;

    /// <summary>The address of a data export of the C library, e.g. <c>__rseq_offset</c>; 0 where there is none.</summary>
    /// <param name="name">The symbol's name.</param>
    internal static nint GetDataExport(string name) =>
        s_handle != 0 && NativeLibrary.TryGetExport(s_handle, name, out nint address) ? address : 0;

    /// <summary><c>int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *mask)</c>: pid is a thread id (0: the calling thread).</summary>
    [LibraryImport(LibraryName, EntryPoint = "sched_getaffinity", SetLastError = true)]
    internal static partial int SchedGetAffinity(int threadId, nuint maskBytes, ulong* mask);

    /// <summary><c>int sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t *mask)</c>: pid is a thread id (0: the calling thread).</summary>
    [LibraryImport(LibraryName, EntryPoint = "sched_setaffinity", SetLastError = true)]
    internal static partial int SchedSetAffinity(int threadId, nuint maskBytes, ulong* mask);

    /// <summary><c>void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)</c>; <see cref="MapFailed"/> on failure.</summary>
    [LibraryImport(LibraryName, EntryPoint = "mmap", SetLastError = true)]
    internal static partial nint MMap(nint address, nuint length, int protection, int flags, int fileDescriptor, nint offset);

    /// <summary><c>int mprotect(void *addr, size_t len, int prot)</c>.</summary>
    [LibraryImport(LibraryName, EntryPoint = "mprotect", SetLastError = true)]
    internal static partial int MProtect(nint address, nuint length, int protection);

    /// <summary><c>int munmap(void *addr, size_t length)</c>.</summary>
    [LibraryImport(LibraryName, EntryPoint = "munmap", SetLastError = true)]
    internal static partial int MUnmap(nint address, nuint length);

    /// <summary><c>unsigned long getauxval(unsigned long type)</c>: 0 where the entry is absent.</summary>
    [LibraryImport(LibraryName, EntryPoint = "getauxval")]
    internal static partial nuint GetAuxVal(nuint type);

    /// <summary><c>long sysconf(int name)</c>.</summary>
    [LibraryImport(LibraryName, EntryPoint = "sysconf")]
    internal static partial nint SysConf(int name);

    /// <summary><c>pid_t gettid(void)</c> (glibc 2.30+).</summary>
    [LibraryImport(LibraryName, EntryPoint = "gettid")]
    internal static partial int GetTid();

    /// <summary><c>pthread_t pthread_self(void)</c>: on glibc x86-64, the thread pointer (the <c>fs</c> base) itself.</summary>
    [LibraryImport(LibraryName, EntryPoint = "pthread_self")]
    internal static partial nint PThreadSelf();

    /// <summary>
    /// <c>int clock_gettime(clockid_t clockid, struct timespec *tp)</c>, the <c>timespec</c> as its
    /// two 64-bit fields (seconds, nanoseconds; x86-64 and arm64). With
    /// <see cref="ClockThreadCpuTime"/> the kernel brings the thread's run time up to date first,
    /// so it is exact to the nanosecond, and leaves out time a hypervisor ran something else on
    /// the processor (steal) where it accounts for it (<c>CONFIG_PARAVIRT_TIME_ACCOUNTING</c>).
    /// </summary>
    [LibraryImport(LibraryName, EntryPoint = "clock_gettime", SetLastError = true)]
    internal static partial int ClockGetTime(int clockId, long* secondsAndNanoseconds);

    /// <summary><c>int tgkill(pid_t tgid, pid_t tid, int sig)</c> (glibc 2.30+).</summary>
    [LibraryImport(LibraryName, EntryPoint = "tgkill", SetLastError = true)]
    internal static partial int TgKill(int processId, int threadId, int signal);
}
