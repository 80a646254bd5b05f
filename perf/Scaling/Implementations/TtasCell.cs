using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// One processor's value, guarded by a test-and-test-and-set spin lock that lives on the same
/// padded 128 bytes (seed 001's partitioned TTAS variant): the lock and the value it guards are
/// fetched together, and no other cell shares their lines.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 128)]
internal struct TtasCell
{
    [FieldOffset(112)]
    private int _held;

    [FieldOffset(120)]
    public long Value;

    /// <summary>Adds 1 under the cell's spin lock.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Increment()
    {
        // Test before the atomic: a plain read of a held lock costs no line ownership transfer.
        if (Volatile.Read(ref _held) != 0 || Interlocked.CompareExchange(ref _held, 1, 0) != 0)
        {
            SpinUntilAcquired(ref _held);
        }

        Value++;
        Volatile.Write(ref _held, 0);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void SpinUntilAcquired(ref int held)
    {
        var spinner = default(SpinWait);
        do
        {
            spinner.SpinOnce();
        }
        while (Volatile.Read(ref held) != 0 || Interlocked.CompareExchange(ref held, 1, 0) != 0);
    }
}
