using System.Runtime.InteropServices;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// One processor's value, guarded by C#'s <c>lock</c> on the cell itself (a <see cref="Monitor"/>,
/// seed 001's <c>lock()</c> variant).
/// </summary>
/// <remarks>
/// Monitor.Enter writes the object's header word, just before the object, so the value sits right
/// after the header (the owner touches both) and 128 bytes of padding follow it, keeping the next
/// cell's header and value off this cell's pair of cache lines.
/// </remarks>
[StructLayout(LayoutKind.Explicit, Size = 136)]
internal sealed class MonitorCell
{
    [FieldOffset(0)]
    public long Value;

    /// <summary>Adds 1 under the cell's monitor.</summary>
    public void Increment()
    {
        lock (this)
        {
            Value++;
        }
    }
}
