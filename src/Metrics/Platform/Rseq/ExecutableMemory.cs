using ScalableMetrics.Platform.Interop;

namespace ScalableMetrics.Platform.Rseq;

/// <summary>
/// Owns a private anonymous mapping that holds generated code: mapped read-write, written,
/// switched to read-execute, checked, and unmapped on every path that does not hand it to the
/// caller. Never writable and executable at once (W^X, as the runtime's own
/// <c>src/coreclr/inc/executableallocator.h</c>).
/// </summary>
/// <remarks>
/// <para>Linux only (<see cref="Libc"/>). Not thread-safe to dispose: dispose only when no thread
/// can call into the code any more (the process-wide restartable add is never disposed). No
/// finalizer, for the same reason: unmapping code a thread may still run would crash it.</para>
/// </remarks>
internal sealed unsafe class ExecutableMemory : IDisposable
{
    private const int PageSize = 4096;

    // Mappings made and not yet unmapped, process-wide: a test reads it around a failure path.
    private static long s_liveMappings;

    private nint _address;

    private ExecutableMemory(nint address, nuint length)
    {
        _address = address;
        Length = length;
    }

    /// <summary>Produces the bytes to place at an address: called once, with the mapping's address.</summary>
    /// <param name="address">Where the bytes will lie.</param>
    internal delegate byte[] ContentProducer(ulong address);

    /// <summary>Checks the code once it is executable; returns why it failed, or null.</summary>
    /// <param name="address">Where the code lies.</param>
    internal delegate string? ContentCheck(nint address);

    /// <summary>The number of mappings this type holds now, process-wide (a diagnostic for tests).</summary>
    internal static long LiveMappings => Volatile.Read(ref s_liveMappings);

    /// <summary>The mapping's address; 0 once disposed.</summary>
    public nint Address => _address;

    /// <summary>The mapping's length in bytes (whole pages).</summary>
    public nuint Length { get; }

    /// <summary>
    /// Maps pages, writes what <paramref name="produce"/> returns for their address, makes them
    /// read-execute and runs <paramref name="check"/>; on any failure (or exception) unmaps them.
    /// </summary>
    /// <param name="produce">Returns the content, at most <paramref name="maxLength"/> bytes.</param>
    /// <param name="maxLength">The most bytes <paramref name="produce"/> may return; rounded up to whole pages.</param>
    /// <param name="check">Checks the executable code; a non-null result is the reason it failed.</param>
    /// <param name="failure">Why no memory was returned; null on success.</param>
    /// <returns>The owner of the mapping, or null (nothing left mapped).</returns>
    public static ExecutableMemory? TryCreate(ContentProducer produce, int maxLength, ContentCheck check, out string? failure)
    {
        ArgumentNullException.ThrowIfNull(produce);
        ArgumentNullException.ThrowIfNull(check);
        ArgumentOutOfRangeException.ThrowIfLessThan(maxLength, 1);
        nuint length = (nuint)((maxLength + PageSize - 1) / PageSize * PageSize);
        nint address = Libc.MMap(0, length, Libc.ProtRead | Libc.ProtWrite, Libc.MapPrivate | Libc.MapAnonymous, -1, 0);
        if (address == Libc.MapFailed)
        {
            failure = $"mmap of {length} bytes failed (errno {System.Runtime.InteropServices.Marshal.GetLastSystemError()})";
            return null;
        }

        Interlocked.Increment(ref s_liveMappings);
        var memory = new ExecutableMemory(address, length);
        bool handedOut = false;
        try
        {
            byte[] content = produce((ulong)address);
            if (content.Length > maxLength)
            {
                failure = $"the code is {content.Length} bytes, more than the {maxLength} allowed";
                return null;
            }

            content.CopyTo(new Span<byte>((void*)address, content.Length));
            if (Libc.MProtect(address, length, Libc.ProtRead | Libc.ProtExec) != 0)
            {
                failure = $"executable memory is not allowed here (mprotect PROT_EXEC failed, errno {System.Runtime.InteropServices.Marshal.GetLastSystemError()})";
                return null;
            }

            failure = check(address);
            handedOut = failure is null;
            return handedOut ? memory : null;
        }
        finally
        {
            if (!handedOut)
            {
                memory.Dispose();
            }
        }
    }

    /// <summary>Unmaps the pages; see the remarks for when that is safe. Idempotent.</summary>
    public void Dispose()
    {
        nint address = Interlocked.Exchange(ref _address, 0);
        if (address != 0 && Libc.MUnmap(address, Length) == 0)
        {
            Interlocked.Decrement(ref s_liveMappings);
        }
    }
}
