using System.Runtime.InteropServices;

namespace ScalableMetrics;

/// <summary>
/// One partition's copy of a series' data, alone on its cache lines.
/// </summary>
/// <remarks>
/// The cell is 128 bytes, not 64, because Intel processors fetch cache lines in adjacent pairs
/// (the spatial prefetcher; seed 002, UnoDB), so two 64-byte cells written by two cores still
/// contend. The data sits at the <em>end</em> of the cell, as in the runtime's
/// <c>CounterAggregator</c>: an array's length word lies just before element 0, and with the
/// data at offsets 112..127 the first cell's <see cref="Sum"/> is 128 bytes past the length
/// word, so a reader of <c>Length</c> never shares a line with the busiest writer (seed 000,
/// VeloxDB, where this alone took a 32-core counter from 8.7x to 30x).
/// The layout is read back by <c>PaddedCellLayoutTests</c> so that a refactor cannot un-pad it.
/// </remarks>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal struct PaddedCell
{
    /// <summary>The size of a cell in bytes: two 64-byte cache lines.</summary>
    public const int Size = 128;

    /// <summary>Operations counted in this partition (used by <see cref="OperationData"/>).</summary>
    [FieldOffset(112)]
    public long Count;

    /// <summary>The sum of the values added in this partition: a counter's value, or an operation's elapsed <see cref="System.Diagnostics.Stopwatch"/> ticks.</summary>
    [FieldOffset(120)]
    public long Sum;
}
