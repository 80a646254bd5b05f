using System.Globalization;
using System.Text;

namespace ScalableMetrics.Cells;

/// <summary>A series' slots in an arena: <paramref name="FirstSlot"/> and the ones after it, in every region of <paramref name="Chunk"/>.</summary>
/// <param name="Chunk">The chunk the slots are in; holding it keeps its memory alive.</param>
/// <param name="FirstSlot">The first slot's index in each region.</param>
internal readonly unsafe record struct SlotRange(ArenaChunk Chunk, int FirstSlot)
{
    /// <summary>The first slot in region 0: the address every write path offsets by partition × <see cref="ArenaChunk.RegionStride"/>.</summary>
    public long* SlotInRegion0 => Chunk.Region0 + FirstSlot;

    // Written here, not generated: the compiler's PrintMembers also prints the pointer property,
    // and Native AOT's compiler (ILCompiler 10.0.12) crashed compiling that (issue 21). The
    // pointer follows from the two members printed.
    private bool PrintMembers(StringBuilder builder)
    {
        builder.Append("Chunk = ").Append(Chunk).Append(", FirstSlot = ").Append(FirstSlot.ToString(CultureInfo.InvariantCulture));
        return true;
    }
}
