using System.Runtime.InteropServices;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// A <see cref="long"/> alone on a pair of cache lines: 128 bytes, because Intel's spatial
/// prefetcher fetches lines in adjacent pairs (seed 002), with the value at the end so that slot
/// 0 is 128 bytes past the array's length word (seed 000), as the core's cells are laid out.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 128)]
internal struct PaddedSlot
{
    [FieldOffset(120)]
    public long Value;
}
