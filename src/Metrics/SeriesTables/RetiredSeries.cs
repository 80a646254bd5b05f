using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Cells;

namespace ScalableMetrics.SeriesTables;

/// <summary>
/// A removed partitioned series' memory, waiting until no thread can write it: its slot ranges,
/// its final reading, and a weak reference to the series object, which is the grace period.
/// </summary>
/// <remarks>
/// <para>A tagged add looks its series up and then adds, and a bound handle can add at any time,
/// so a removed series may still be written: its ranges can go back to the arena only once no
/// thread holds the series. No add pays for knowing that (the bound add has no removed flag to
/// test): the garbage collector knows it. While the weak reference is alive a writer may still
/// come; once it is dead no thread can reach the series, so the collector reads its slots one
/// last time, counts what was added after its final reading (<see cref="LateAdds"/>, summed per
/// registry into the self-metric <c>scalablemetrics_removed_series_late_adds_total</c>: never
/// exported, never lost without a count), zeroes them and hands them back to the arena
/// (<see cref="PartitionArena.Free"/>), for a new series of as many slots. After the epoch-based
/// reclamation of RCU and of OpenTelemetry .NET's reclaimed metric points, with the GC's own
/// reachability as the quiescent state.</para>
/// <para>Nothing that outlives the removal holds the series strongly: the table unlinks it, its
/// reservoir and chunk do not point back at it, and this entry holds it weakly (and is found from
/// the series through a <see cref="ConditionalWeakTable{TKey, TValue}"/>, which does not keep it alive). A caller who keeps
/// a bound handle keeps it alive, and its memory with it, for as long as the handle lives. An add
/// under way keeps it alive too, until its store (<c>PartitionedSeries.KeepUntilAdded</c>): the add
/// holds the slots by raw pointers, and without that a tagged add, whose caller holds the series
/// nowhere else, could be stopped by a collection between loading the pointer and storing.</para>
/// <para>Written under the table's lock (creation, <see cref="TryReclaim"/>) and under the arena's
/// read lock (<see cref="CaptureFinal"/>, and the reads of <see cref="TryReclaim"/>).</para>
/// </remarks>
internal sealed unsafe class RetiredSeries
{
    // Each marked series' entry, beside the series rather than in it (see Series' flags); the
    // series is held weakly, as by the entry itself.
    private static readonly ConditionalWeakTable<Series, RetiredSeries> s_bySeries = [];

    private readonly WeakReference _series;
    private readonly PartitionArena _arena;
    private readonly long* _compactSlots;
    private readonly SlotRange? _perPartition;
    private readonly int _slotCount;
    private readonly long[] _final;
    private readonly int _recordCountSlots;
    private readonly bool _doubleValue;
    private readonly bool _wrapping;
    private bool _captured;

    /// <summary>The entry of a series marked for removal; called under the arena's read lock, which its promotion takes.</summary>
    /// <param name="series">The series, held weakly.</param>
    /// <param name="arena">Its per-partition arena.</param>
    /// <param name="compactSlots">Its compact slots, or null where it has none.</param>
    /// <param name="perPartition">Its per-partition range (the first generation's), or null while compact.</param>
    /// <param name="slotCount">Its slots.</param>
    /// <param name="recordCountSlots">A histogram's or an operation's: its first slots, whose counts sum to its records (the rest count the same records again, or sum their values); 0 for a sum (a counter's or an up-down counter's one slot).</param>
    /// <param name="doubleValue">A sum's: whether its slot holds a <see cref="double"/>.</param>
    /// <param name="wrapping">Whether its <see cref="long"/> slots wrap (an up-down counter's, <c>SlotSum.Wrapping</c>) rather than saturate at <see cref="long.MaxValue"/> (a counter's, and a histogram's or an operation's counts).</param>
    public RetiredSeries(Series series, PartitionArena arena, long* compactSlots, SlotRange? perPartition, int slotCount, int recordCountSlots, bool doubleValue, bool wrapping)
    {
        Debug.Assert(recordCountSlots > 0 || slotCount == 1, "a sum has one slot");
        _series = new WeakReference(series);
        _arena = arena;
        _compactSlots = compactSlots;
        _perPartition = perPartition;
        _slotCount = slotCount;
        _final = new long[slotCount];
        _recordCountSlots = recordCountSlots;
        _doubleValue = doubleValue;
        _wrapping = wrapping;
    }

    /// <summary>The entry of <paramref name="series"/>, marked for removal; null before the mark.</summary>
    public static RetiredSeries? Of(Series series) => s_bySeries.TryGetValue(series, out RetiredSeries? entry) ? entry : null;

    /// <summary>Keeps <paramref name="entry"/> as <paramref name="series"/>' entry; at its mark.</summary>
    public static void Add(Series series, RetiredSeries entry) => s_bySeries.AddOrUpdate(series, entry);

    /// <summary>Drops <paramref name="series"/>' entry, whose mark was taken back before its unlink; its ranges stay the series'.</summary>
    public static void Remove(Series series) => s_bySeries.Remove(series);

    /// <summary>
    /// After <see cref="TryReclaim"/>: what was added after the final reading, as
    /// <c>scalablemetrics_removed_series_late_adds_total</c> documents it: for a histogram or an
    /// operation the records (the change of its count slots); for a counter the value added, and
    /// for an up-down counter the size of the change, a <see cref="double"/>'s rounded up to a
    /// whole number (at least 1 where it changed), saturating at <see cref="long.MaxValue"/>.
    /// </summary>
    public long LateAdds { get; private set; }

    /// <summary>
    /// Keeps the series' reading of a collection (a row of sums: a <see cref="double"/> sum's
    /// bits where the series holds one) as its final one; the last collection that reads it
    /// before its unlink is the one kept. Under the arena's read lock, in the read itself, so
    /// that the kept reading is the exported one.
    /// </summary>
    public void CaptureFinal(ReadOnlySpan<long> row)
    {
        Debug.Assert(row.Length == _slotCount, "a row of the series' slots");
        row.CopyTo(_final);
        _captured = true;
    }

    /// <summary>
    /// Reclaims the series' ranges if no thread can write them any more: counts what was added
    /// after the final reading, zeroes them and frees them. Under the table's lock.
    /// </summary>
    /// <returns>Whether the ranges were reclaimed (the entry is done).</returns>
    public bool TryReclaim()
    {
        if (_series.IsAlive)
        {
            return false;
        }

        long late;
        lock (_arena.ReadLock)
        {
            late = _recordCountSlots > 0 ? RecordsAdded() : _doubleValue ? DoubleValueAdded() : LongValueAdded(0);
            Free();
        }

        LateAdds = late;
        return true;
    }

    // A histogram's or an operation's records since the final reading: its count slots' changes
    // (each zero or positive: a count only grows).
    private long RecordsAdded()
    {
        long records = 0;
        for (int slot = 0; slot < _recordCountSlots; slot++)
        {
            records = SaturatingSum.Add(records, LongValueAdded(slot));
        }

        return records;
    }

    // The size of a long slot's change since the final reading. A saturating slot's total and its
    // final reading are both saturating sums, in [0, long.MaxValue], so their difference cannot
    // overflow, and a total that had saturated by the final reading has no late adds to count
    // however far its words went past long.MaxValue since; a wrapping slot's is the wrapping
    // difference, exact whenever the change fits a long.
    private long LongValueAdded(int slot)
    {
        long final = _captured ? _final[slot] : 0;
        if (!_wrapping)
        {
            return Math.Abs(SumSaturating(slot) - final);
        }

        long diff = unchecked(SumWrapping(slot) - final);
        return diff == long.MinValue ? long.MaxValue : Math.Abs(diff);
    }

    // The size of a double sum's change since the final reading, rounded up to a whole number.
    private long DoubleValueAdded()
    {
        double now = SumDouble(0);
        double final = _captured ? BitConverter.Int64BitsToDouble(_final[0]) : 0;
        if (now == final || (double.IsNaN(now) && double.IsNaN(final)))
        {
            return 0;
        }

        double change = Math.Abs(now - final);
        return double.IsNaN(change) ? 1 : change >= long.MaxValue ? long.MaxValue : Math.Max(1, (long)Math.Ceiling(change));
    }

    // A saturating slot's total now, compact and per partition, as a read takes it
    // (PartitionedSeries.SumSlot): a negative compact word is past long.MaxValue, and the sum
    // stops there.
    private long SumSaturating(int slot)
    {
        long sum = _compactSlots == null ? 0 : SaturatingSum.Add(0, Volatile.Read(ref _compactSlots[slot]));
        return _perPartition is { } range ? SaturatingSum.Add(sum, range.Chunk.SumSlot(range.FirstSlot + slot)) : sum;
    }

    // A wrapping slot's sum now, compact and per partition, as a wrapping sum of its words.
    private long SumWrapping(int slot)
    {
        long sum = _compactSlots == null ? 0 : Volatile.Read(ref _compactSlots[slot]);
        return _perPartition is { } range ? unchecked(sum + range.Chunk.SumSlotWrapping(range.FirstSlot + slot)) : sum;
    }

    private double SumDouble(int slot)
    {
        double sum = _compactSlots == null ? 0 : DoubleCell.Read(_compactSlots + slot);
        return _perPartition is { } range ? sum + range.Chunk.SumSlotDouble(range.FirstSlot + slot) : sum;
    }

    private void Free()
    {
        if (_compactSlots != null)
        {
            _arena.Compact.Free(_arena.Compact.RangeAt(_compactSlots), _slotCount);
        }

        if (_perPartition is { } range)
        {
            _arena.Free(range, _slotCount);
        }
    }
}
