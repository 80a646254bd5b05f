using System.Runtime.CompilerServices;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Tags;

namespace ScalableMetrics.Recording;

/// <summary>
/// Finds the series of one instrument for a source that adds tags of its own to every
/// measurement's (a listened instrument: its own and its meter's tags): the series for a
/// measurement's tags, the untagged one bound once. Handed out by the instrument
/// (<c>CreateRecorder</c>), so that its user needs none of the instrument's lookup.
/// </summary>
/// <remarks>
/// <para>A measurement's tags are looked up first among the calling thread's recent tag sets,
/// under an owner number of this recorder's (<see cref="RecentTagSets"/>): the measured tags as
/// given, before the source's tags are added, so that a hit neither merges tags nor hashes one,
/// and costs no call through the instrument. Only a miss merges, looks up by value in the
/// series table and remembers the measured tags.</para>
/// <para>Two calls, the hit inlined and the miss not, so that its user catches a refusal around
/// the miss only, never around the add or record: the JIT does not inline a call made inside a
/// <c>try</c> region, and a listened histogram's record there ran at half its speed or less
/// (perf/results/README.md, issue 11).</para>
/// <para>A struct, kept in a field of its user's, so that the hit loads the table and the owner
/// off the user's own object, as it would its own fields, with no object of the recorder's in
/// between. <see cref="Find"/> only reads, and may run on a copy; <see cref="GetOrAdd"/> binds
/// the untagged series in place, so runs on the field itself, which is not
/// <see langword="readonly"/> for that. Thread-safe as the table is: threads that race to bind
/// the untagged series bind the same one.</para>
/// </remarks>
/// <typeparam name="TSeries">The instrument's bound series.</typeparam>
internal struct SeriesRecorder<TSeries>
    where TSeries : Series
{
    private readonly SeriesTable<TSeries> _table;

    // The source's tags, added to every measurement's (a measured tag of the same key wins).
    private readonly KeyValuePair<string, object?>[] _sourceTags;

    // Not the table's own: the measured tags name a series only with the source's tags added.
    private readonly long _owner;
    private TSeries? _untagged;

    /// <summary>A recorder into <paramref name="table"/>'s series that adds <paramref name="sourceTags"/> to every measurement's tags.</summary>
    /// <param name="table">The instrument's series.</param>
    /// <param name="sourceTags">The source's tags, with distinct keys and no null value; none for a source without tags.</param>
    internal SeriesRecorder(SeriesTable<TSeries> table, KeyValuePair<string, object?>[] sourceTags)
    {
        _table = table;
        _sourceTags = sourceTags;
        _owner = RecentTagSets.NewOwner();
    }

    /// <summary>The series of <paramref name="tags"/> and the source's tags where the calling
    /// thread met these tags before (or they are none, and the untagged series is bound); else
    /// null: <see cref="GetOrAdd"/> then finds or creates it.</summary>
    /// <param name="tags">The measured tags, as given.</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public readonly TSeries? Find(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (tags.IsEmpty)
        {
            // A removed series is bound again, to the series of its tags now.
            return _untagged is { IsRemoved: false } untagged ? untagged : null;
        }

        // Read before the lookup, so that its loads overlap the call; the key (the table's
        // removal epoch with this recorder's number) after it, as the table reads its own.
        TSeries[] byIndex = _table.ByIndex;
        int index = RecentTagSets.Find(_table.KeyOf(_owner), tags);
        return index >= 0 ? byIndex[index] : null;
    }

    /// <summary>The series of <paramref name="tags"/> and the source's tags, created on first use,
    /// found by value: the miss path of <see cref="Find"/>, which it makes hit next time (the
    /// measured tags remembered on the calling thread, or the untagged series bound).</summary>
    /// <remarks>Past the limit the source's tags alone go to the overflow series, which is not
    /// bound: it is never removed, so bound it would keep the untagged measurements there after a
    /// removal freed a place (as the table binds its own untagged series, never the overflow
    /// series, and remembers no tag set that goes there).</remarks>
    /// <param name="tags">The measured tags, as given.</param>
    /// <exception cref="ArgumentException">The tags break the registry's rules; nothing is created.</exception>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public TSeries GetOrAdd(ReadOnlySpan<KeyValuePair<string, object?>> tags) =>
        tags.IsEmpty
            ? (_untagged is { IsRemoved: false } untagged ? untagged : GetOrAddUntagged())
            : _table.GetOrAddAndRemember(TagScratch.WithSource(tags, _sourceTags), _table.KeyOf(_owner), tags);

    // The series of the source's tags alone, bound unless it is the overflow series (see GetOrAdd).
    private TSeries GetOrAddUntagged()
    {
        TSeries series = _table.GetOrAdd(_sourceTags);
        if (!ReferenceEquals(series, _table.OverflowIfAny))
        {
            _untagged = series;
        }

        return series;
    }
}
