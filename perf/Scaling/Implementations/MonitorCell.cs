using System.Runtime.InteropServices;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// One processor's value, guarded by C#'s <c>lock</c> on the cell itself (a <see cref="Monitor"/>,
/// seed 001's <c>lock()</c> variant).
/// </summary>
/// <remarks>
/// Monitor.Enter writes the object's header word, just before the object, so the value sits right
/// after the header (the owner touches both) and 128 bytes of padding follow it, keeping the next
/// cell's header off this cell's pair of cache lines. The layout is explicit because the runtime
/// reorders the fields of a class, and ignores <see cref="StructLayoutAttribute.Size"/> on one.
/// A monitor that has seen contention is inflated into a sync block that the runtime allocates
/// elsewhere; that part of the lock cannot be padded.
/// </remarks>
[StructLayout(LayoutKind.Explicit)]
internal sealed class MonitorCell
{
    [FieldOffset(0)]
    public long Value;

#pragma warning disable CS0169 // Never read or written: it only takes up space.
    [FieldOffset(sizeof(long))]
    private PaddingAfter _padding;
#pragma warning restore CS0169

    /// <summary>Adds 1 under the cell's monitor.</summary>
    public void Increment()
    {
        lock (this)
        {
            Value++;
        }
    }

    [StructLayout(LayoutKind.Sequential, Size = 128)]
    private struct PaddingAfter
    {
    }
}
