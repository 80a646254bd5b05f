using System.Runtime.InteropServices;

namespace ScalableMetrics.Platform.Interop;

/// <summary>The binding to Windows' <c>kernel32.dll</c>: the one call the project makes there.</summary>
/// <remarks>Call only on Windows. Thread-safe.</remarks>
internal static unsafe partial class Kernel32
{
    /// <summary><c>void GetCurrentProcessorNumberEx(PPROCESSOR_NUMBER)</c>, without a GC transition (it reads a per-processor register).</summary>
    [LibraryImport("kernel32.dll", EntryPoint = "GetCurrentProcessorNumberEx")]
    [SuppressGCTransition]
    internal static partial void GetCurrentProcessorNumberEx(ProcessorNumber* number);

    /// <summary>Windows' <c>PROCESSOR_NUMBER</c>: a processor group and the number within it.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct ProcessorNumber
    {
        /// <summary>The processor group (64 processors each).</summary>
        public ushort Group;

        /// <summary>The processor's number in its group.</summary>
        public byte Number;

        /// <summary>Unused.</summary>
        public byte Reserved;
    }
}
