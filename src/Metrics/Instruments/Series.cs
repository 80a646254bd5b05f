using System.Diagnostics;
using ScalableMetrics.SeriesTables;

namespace ScalableMetrics;

/// <summary>
/// One series of an instrument: the tags that name it. Partitioned instruments' series derive
/// from <see cref="PartitionedSeries"/>; a gauge's series keeps one cell (<c>GaugeSeries</c>).
/// </summary>
/// <remarks>Thread-safe. Series are created by their instrument, never by the caller.</remarks>
public abstract class Series
{
    // Flags in the high bits of the index's word, so that a series is no larger than before
    // removal existed: the bound add's machine code reads the series' fields at offsets a listing
    // checks (tests/Metrics.Tests/JitListings), and a field of its own moved them.
    private const int IndexMask = (1 << 28) - 1;
    private const int MarkedFlag = 1 << 28;
    private const int RemovedFlag = 1 << 29;
    private const int BoundFlag = 1 << 30;

    private int _indexAndFlags;

    private protected Series(TagSet tags)
    {
        Tags = tags;
    }

    /// <summary>The tags that name this series.</summary>
    public TagSet Tags { get; }

    /// <summary>
    /// Its place in its instrument's series, in creation order (<c>SeriesTable</c>): set once,
    /// before the series is published, so that a thread's recent tag sets
    /// (<see cref="Tags.RecentTagSets"/>) name it by number and keep no series alive. A removed
    /// series' index goes to a later series.
    /// </summary>
    internal int Index
    {
        get => Volatile.Read(ref _indexAndFlags) & IndexMask;
        set
        {
            Debug.Assert(value is >= 0 and <= IndexMask, "an index fits below the flags");
            _indexAndFlags = (_indexAndFlags & ~IndexMask) | value;
        }
    }

    /// <summary>Whether the series is marked for removal (<c>SeriesTable.Remove</c>): its next collection is its last. Set, and taken back by a <c>Bind</c> before the unlink, under the table's lock; read by reads and promotions, never by an add.</summary>
    internal bool IsMarked => (Volatile.Read(ref _indexAndFlags) & MarkedFlag) != 0;

    /// <summary>Whether the series was removed from its instrument (unlinked after its last collection); set once, under the table's lock, and read by no add.</summary>
    internal bool IsRemoved => (Volatile.Read(ref _indexAndFlags) & RemovedFlag) != 0;

    /// <summary>Whether a caller bound the series (<c>Bind</c>): idle expiry leaves it alone, as a bound handle says the series is in use. Set by <c>Bind</c>, never by an add.</summary>
    internal bool IsBound => (Volatile.Read(ref _indexAndFlags) & BoundFlag) != 0;

    /// <summary>What reclaims the memory of a partitioned series once it is removed (<see cref="Retire"/>); null for a series without arena memory, and before the mark.</summary>
    internal virtual RetiredSeries? Retirement => null;

    /// <summary>Marks the series for removal; under the table's lock.</summary>
    internal void MarkForRemoval()
    {
        Retire();
        Debug.Assert(IsMarked, "every Retire sets the mark (SetMark)");
    }

    /// <summary>
    /// Marks the series removed (unlinked); under the table's lock. A series whose value lives in
    /// the object itself (a gauge's) counts its reclaim, and a write after its last export, into
    /// <paramref name="finalized"/> once the garbage collector finds it unreachable.
    /// </summary>
    internal void MarkRemoved(FinalizedRemovals finalized)
    {
        Interlocked.Or(ref _indexAndFlags, RemovedFlag);
        Unlinked(finalized);
    }

    /// <summary>Takes back the mark of <see cref="MarkForRemoval"/>, before the series is unlinked: it stays, as if never marked; under the table's lock.</summary>
    internal void CancelRemoval()
    {
        Debug.Assert(IsMarked && !IsRemoved, "a series marked and not unlinked");
        Unretire();
        Interlocked.And(ref _indexAndFlags, ~MarkedFlag);
    }

    /// <summary>Marks the series bound (see <see cref="IsBound"/>).</summary>
    internal void MarkBound() => Interlocked.Or(ref _indexAndFlags, BoundFlag);

    /// <summary>
    /// Called once, under the table's lock, to mark the series for removal: sets the mark
    /// (<see cref="SetMark"/>); a partitioned series also stops taking promotions and keeps its
    /// next reading as its final one, and sets the mark under the same arena lock as its retired
    /// entry, so that no promotion comes between the two.
    /// </summary>
    private protected virtual void Retire() => SetMark();

    /// <summary>Sets the mark <see cref="IsMarked"/> reads: by <see cref="Retire"/>, once.</summary>
    private protected void SetMark() => Interlocked.Or(ref _indexAndFlags, MarkedFlag);

    /// <summary>Called under the table's lock when a mark is taken back (<see cref="CancelRemoval"/>): undoes what <see cref="Retire"/> did.</summary>
    private protected virtual void Unretire()
    {
    }

    /// <summary>Called once, under the table's lock, when the series is unlinked after its last collection (<see cref="MarkRemoved"/>): a gauge's series hands its reclaim to <paramref name="finalized"/>.</summary>
    private protected virtual void Unlinked(FinalizedRemovals finalized)
    {
    }
}
