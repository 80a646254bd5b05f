using System.Diagnostics;
using System.Runtime.CompilerServices;
using ScalableMetrics.Naming;
using ScalableMetrics.Snapshots;
using ScalableMetrics.Tags;

namespace ScalableMetrics.SeriesTables;

/// <summary>
/// An instrument's series, looked up by tags, with the one cardinality limit.
/// </summary>
/// <remarks>
/// <para><b>Lookup.</b> A lookup of a tag set met before allocates nothing and takes no lock. It
/// first looks among the calling thread's recent tag sets (<see cref="RecentTagSets"/>), which
/// compare the caller's very strings and boxes by reference and write no shared memory; only
/// where that misses are the caller's tags hashed (a per-process seeded hash,
/// <see cref="TagValues.Hash"/>) and compared in place (<see cref="TagSetComparer"/>), and a tag
/// set found there is remembered for the thread's next lookup. A tag set is only compared with
/// stored sets of as many tags, and none holds more than the table's tag limit, so a lookup
/// costs at most that limit squared key comparisons.</para>
/// <para><b>Identity.</b> A tag set not met before is checked (<see cref="TagLimits"/>) and given
/// its exported identity (<see cref="SeriesIdentity"/>). Tag sets of one identity are one series:
/// the series keeps the tags it was created with, and a later tag set that exports alike (<c>200</c>
/// and <c>"200"</c>, <c>http.route</c> and <c>http_route</c>, <c>route=""</c> and no tag) records
/// into it. Such a tag set is kept as an alias, so that its next lookup is the fast one; past
/// <see cref="MaxSeries"/> aliases, further ones are resolved under the lock on every use.</para>
/// <para><b>Limit.</b> Series are created under the table's lock, so that there are never more
/// than <see cref="MaxSeries"/>, however many threads create them at once. Once there are, a tag
/// set not met before records into one overflow series tagged <c>otel.metric.overflow=true</c>
/// (as OpenTelemetry's cardinality limit does), found without a lock and without allocating: a
/// tag set that would have been an alias of an existing series goes there too, unless it was
/// met before the limit was reached. Once an alias was not kept (past <see cref="MaxSeries"/>
/// aliases), a tag set the lock-free lookup misses may be that alias, met before the limit: from
/// then on, past the limit, each such tag set takes the lock's path, which finds an alias's series
/// by its identity (an alias met first after the limit too) and sends the rest to the overflow
/// series, allocating the tag set it looks up. No value is lost.</para>
/// <para><b>Memory.</b> Every series costs the table a few slots of 8 bytes and no object of its
/// own: a reference in the lookup (<see cref="SeriesByTags"/>), one in the creation-order array
/// (and, once a removal has freed an index, one more in the dense array of live series that reads
/// walk), and an (identity hash, index) pair (<see cref="SeriesIdentityIndex"/>); no identity key
/// or exported label is kept, they are recomputed on the path that creates a series.</para>
/// <para><b>Views.</b> Where a view keeps or drops tag keys (<see cref="TagLimits.KeyFilter"/>),
/// a tag set met for the first time is cut to its kept keys before its identity is taken: the
/// series holds only those, and the tag set as given is kept as its alias, so that its next lookup
/// is the fast one and tag sets that differ only in dropped keys record into one series. Past the
/// limit, such a tag set still finds its series by its kept keys (under the lock, until an alias
/// is kept for it).</para>
/// <para><b>Removal.</b> <see cref="Remove(TSeries)"/> marks a series; the first collection of
/// the instrument that starts after the mark (<see cref="BeginRead"/>) reads it a last time and then
/// unlinks it (<see cref="EndRead"/>): out of the lookup, its aliases and its identity, its index
/// freed, the limit's count lowered, and every thread's recent tag sets of this table made stale
/// at once by a new key (<see cref="OwnerKey"/>: the removal epoch beside the owner number, so
/// that no entry names a freed or reused index). Until the unlink the series takes every add, so
/// a series of the same tags is never read beside it; an add that found it before the unlink and
/// lands after its last read is an add to a retired series (<see cref="RetiredSeries"/>), counted
/// when its memory is reclaimed, never exported twice or lost without a count; a gauge's series,
/// whose value is its own field, is compared with its last read when the GC finalizes it
/// (<see cref="FinalizedRemovals"/>).</para>
/// <para>Thread-safe.</para>
/// </remarks>
/// <typeparam name="TSeries">The instrument's bound series type.</typeparam>
internal sealed class SeriesTable<TSeries>
    where TSeries : Series
{
    private static readonly TagSet s_overflowTags = TagSet.Create(new KeyValuePair<string, object?>(ExportedNames.OverflowTagKey, true));

    // This table's number, and its entries' key among each thread's recent tag sets: the number
    // with the removal epoch in the high half (OwnerKey), replaced, before the arrays it indexes,
    // by each unlink.
    private readonly long _ownerNumber = RecentTagSets.NewOwner();
    private long _owner;
    private uint _epoch;

    // Every tag set met (created or alias) to its series: read without a lock, written under _lock.
    private readonly SeriesByTags _byTags = new();

    // Exported identity hash to the series' index in _series; only under _lock.
    private readonly SeriesIdentityIndex _byIdentity;

    // The identity hash of the series at an index, recomputed from its tags: what _byIdentity
    // asks for each of its entries when it grows (it keeps no full hash).
    private readonly Func<int, int> _identityHashOf;
    private readonly Func<TagSet, TSeries> _createSeries;
    private readonly TagLimits _tagLimits;
    private readonly Lock _lock = new();

    // The series by index (Series.Index), the overflow series included: the first _count entries,
    // null where a removed series' index is free (_freeIndexes) and not yet reused. An entry is
    // written before a thread can learn its index; an unlink publishes a copy, so that an array a
    // thread read never loses an entry it indexes (see OwnerKey).
    private TSeries?[] _series = new TSeries?[4];
    private int _count;
    private Stack<int>? _freeIndexes;

    // The live series, densely, in creation order (a reused index's series at the end): what a
    // read reads. Appended in place; an unlink publishes a copy, with its count, as one object.
    // Until the first unlink that frees an index (while _epoch is 0) the two orders are one, and
    // _live's array is _series itself: a table whose series are never removed keeps one reference
    // per series here, not two.
    private LiveSeries _live;

    // A read that is no collection's (BeginRead's collection: false): EndRead does nothing for it.
    private const long NoCollection = 0;

    // Collections begun (BeginRead), and the series marked for removal with the count at their
    // mark: a collection whose number is past a mark reads the series a last time and unlinks it.
    private long _reads;
    private List<(TSeries Series, long MarkedAt)>? _removing;

    // The retired series' memory, reclaimed once no thread can write it (RetiredSeries).
    private List<RetiredSeries>? _retired;

    // The removed series reclaimed by their own finalization, not by a collection: a gauge's,
    // whose value is a field of the series object (FinalizedRemovals).
    private readonly FinalizedRemovals _finalized = new();

    // _removing's and _retired's entries: 0 lets a collection end without the lock.
    private int _pendingWork;

    // Idle expiry's state by index (MarkIdle): null until a collection with expiry on.
    private int[]? _idleCounts;
    private long[]? _digests;

    // Series created for callers' tag sets (not the overflow series): the limit's count, read
    // without a lock on the miss path and raised under _lock.
    private int _createdCount;
    private int _aliasCount;

    // Whether a tag set was ever resolved to a series by its identity and not kept as its alias
    // (past MaxSeries aliases): such a tag set, met before the limit, is found only by identity,
    // so past the limit the miss path no longer goes to the overflow series without the lock.
    // Set under _lock, once, and read without it after _createdCount.
    private bool _aliasSkipped;
    private TSeries? _overflow;
    private TSeries? _untagged;

    public SeriesTable(int maxSeries, TagLimits tagLimits, Func<TagSet, TSeries> createSeries)
    {
        MaxSeries = maxSeries;
        _tagLimits = tagLimits;
        _createSeries = createSeries;
        _byIdentity = new SeriesIdentityIndex(maxSeries);
        _identityHashOf = index => SeriesIdentity.Hash(SeriesIdentity.Labels(_series[index]!.Tags));
        _owner = OwnerKey(_ownerNumber, 0);
        _live = new LiveSeries(_series!, 0);
    }

    /// <summary>The most series this table creates for callers' tag sets before it sends new tag sets to the overflow series.</summary>
    public int MaxSeries { get; }

    /// <summary>The number of distinct series, the overflow series included once it exists; a removed series until its unlink.</summary>
    public int Count => Volatile.Read(ref _live).Count;

    /// <summary>Whether the overflow series exists: a tag set came past <see cref="MaxSeries"/> and was recorded there. Once created it stays, whatever series are removed later.</summary>
    public bool HasOverflowSeries => Volatile.Read(ref _overflow) is not null;

    /// <summary>
    /// The overflow series, created here where it does not exist yet: for an owner that applies a
    /// limit of its own below <see cref="MaxSeries"/> (an observable instrument's, to the tag sets
    /// its callback reports in one collection) and sends what that limit turns away here.
    /// </summary>
    public TSeries Overflow
    {
        get
        {
            if (Volatile.Read(ref _overflow) is { } overflow)
            {
                return overflow;
            }

            lock (_lock)
            {
                return _overflow ?? CreateOverflow();
            }
        }
    }

    /// <summary>The overflow series where it exists; else null.</summary>
    public TSeries? OverflowIfAny => Volatile.Read(ref _overflow);

    /// <summary>The distinct series, each once (aliases are not repeated), in creation order: a snapshot.</summary>
    public ArraySegment<TSeries> Series
    {
        get
        {
            LiveSeries live = Volatile.Read(ref _live);
            return new ArraySegment<TSeries>(live.Array, 0, live.Count);
        }
    }

    /// <summary>This table's retired series reclaimed so far; under the table's lock.</summary>
    internal long ReclaimedCount { get; private set; }

    /// <summary>What was added to this table's retired series after their final export, found at their reclaims (<see cref="RetiredSeries.LateAdds"/>); under the table's lock.</summary>
    internal long LateAdds { get; private set; }

    /// <summary>
    /// The retired series whose memory is not reclaimed yet, those reclaimed, and what was added to
    /// them after their final export: a partitioned series' entries (<see cref="RetiredSeries"/>,
    /// reclaimed by a collection after the GC) and a gauge's series (<see cref="FinalizedRemovals"/>,
    /// reclaimed by their finalization, 1 late add for each set after its last export to another value).
    /// </summary>
    internal (int Retired, long Reclaimed, long LateAdds) Removals
    {
        get
        {
            lock (_lock)
            {
                return (
                    (_retired?.Count ?? 0) + _finalized.Waiting,
                    ReclaimedCount + _finalized.Reclaimed,
                    Cells.SaturatingSum.Add(LateAdds, _finalized.LateWrites));
            }
        }
    }

    /// <summary>
    /// The key of <paramref name="owner"/>'s entries among threads' recent tag sets at removal
    /// epoch <paramref name="epoch"/>: the epoch in the high half, so that an unlink makes every
    /// entry of the table (and of its recorders) stale at once. Owner numbers stay below
    /// 2<sup>32</sup> (one per table and recorder made); an entry is taken for a later epoch only
    /// after 2<sup>32</sup> unlinks of its table, by a thread that kept it untouched meanwhile.
    /// </summary>
    internal static long OwnerKey(long owner, uint epoch)
    {
        Debug.Assert(owner is > 0 and <= uint.MaxValue, "owner numbers fit the low half");
        return ((long)epoch << 32) | owner;
    }

    /// <summary>The key of <paramref name="owner"/> (a recorder's number) at the table's epoch now: read after <see cref="ByIndex"/>, as the table's own lookup reads its key.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal long KeyOf(long owner) => ((long)_epoch << 32) | owner;

    /// <summary>
    /// Starts a collection of the table's series: the series to read (the live ones, the marked
    /// included), and the collection's number, for <see cref="EndRead"/>. Where
    /// <paramref name="collection"/> is false, a read that is no collection (a <c>MeterListener</c>'s
    /// view, <c>RegistryMeterPublisher</c>): the same series, and a number for which
    /// <see cref="EndRead"/> does nothing, so that it unlinks no marked series and counts no idle
    /// collection.
    /// </summary>
    /// <param name="read">The collection's number.</param>
    /// <param name="collection">Whether the read is a collection.</param>
    public ArraySegment<TSeries> BeginRead(out long read, bool collection = true)
    {
        // A full fence, against Mark's (see there); a read that is no collection needs none, as
        // it keeps no marked series' reading.
        read = collection ? Interlocked.Increment(ref _reads) : NoCollection;
        return Series;
    }

    /// <summary>
    /// Ends collection <paramref name="read"/>, which read the series <see cref="BeginRead"/>
    /// gave it: unlinks the series marked before it began (it read them a last time, and a
    /// partitioned series' reading is its final one, <see cref="RetiredSeries"/>), then reclaims the
    /// memory of retired series no thread can write any more.
    /// </summary>
    /// <param name="read">The collection's number, from <see cref="BeginRead"/>: for a read that is no collection, nothing is done.</param>
    /// <param name="snapshot">What it read: where idle expiry looks for series whose reading did not change.</param>
    /// <param name="idleCollections">Idle expiry: mark the series unchanged for this many collections in a row, bound ones aside; 0: none.</param>
    public void EndRead(long read, InstrumentSnapshot snapshot, int idleCollections)
    {
        if (read == NoCollection)
        {
            return;
        }

        if (idleCollections > 0)
        {
            lock (_lock)
            {
                MarkIdle(snapshot, idleCollections);
            }
        }

        if (Volatile.Read(ref _pendingWork) == 0)
        {
            return;
        }

        lock (_lock)
        {
            if (_removing is { Count: > 0 } removing)
            {
                UnlinkReadBefore(removing, read);
            }

            if (_retired is { Count: > 0 } retired)
            {
                retired.RemoveAll(entry =>
                {
                    if (!entry.TryReclaim())
                    {
                        return false;
                    }

                    ReclaimedCount++;
                    LateAdds = Cells.SaturatingSum.Add(LateAdds, entry.LateAdds);
                    return true;
                });
            }

            Volatile.Write(ref _pendingWork, (_removing?.Count ?? 0) + (_retired?.Count ?? 0));
        }
    }

    /// <summary>
    /// Marks the series named by <paramref name="tags"/> for removal at the instrument's next
    /// collection (see remarks): the series of these tags, of an alias of them, or of the tags
    /// that export alike.
    /// </summary>
    /// <returns>Whether a series was marked: false where none has these tags, for the overflow series, and for one marked already.</returns>
    /// <exception cref="ArgumentException">The tags break the rules of <see cref="TagSet.Create"/> or <see cref="TagLimits"/>.</exception>
    public bool Remove(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (_byTags.Find(tags) is { } found)
        {
            return Remove(Unsafe.As<TSeries>(found));
        }

        _tagLimits.Validate(tags);
        TagSet tagSet = TagSet.Create(tags);
        TagSet kept = _tagLimits.KeyFilter?.Apply(tagSet) ?? tagSet;
        KeyValuePair<string, string>[] labels = SeriesIdentity.Labels(kept);
        int identityHash = SeriesIdentity.Hash(labels);
        lock (_lock)
        {
            return FindByIdentity(identityHash, labels) is { } same && Mark(same);
        }
    }

    /// <summary>Marks <paramref name="series"/>, one of this table's, for removal at the instrument's next collection (see remarks).</summary>
    /// <returns>Whether it was marked: false where it is not in the table (another instrument's, or removed), for the overflow series, and for one marked already.</returns>
    public bool Remove(TSeries series)
    {
        lock (_lock)
        {
            int index = series.Index;
            return (uint)index < (uint)_count && ReferenceEquals(_series[index], series) && Mark(series);
        }
    }

    /// <summary>Checks <paramref name="tags"/> as <see cref="GetOrAdd"/> does before it creates a
    /// series for them, creating nothing: for a caller that refuses a tag set before it reaches the table.</summary>
    /// <param name="tags">The tags, as given (any order, not yet normalized).</param>
    /// <exception cref="ArgumentException">The tags break the rules of <see cref="TagSet.Create"/> or <see cref="TagLimits"/>.</exception>
    public void Validate(ReadOnlySpan<KeyValuePair<string, object?>> tags) => _tagLimits.Validate(tags);

    /// <summary>The series for <paramref name="tags"/>, created on first use.</summary>
    /// <exception cref="ArgumentException">The tags break the rules of <see cref="TagSet.Create"/> or <see cref="TagLimits"/>.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public TSeries GetOrAdd(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (tags.IsEmpty)
        {
            return _untagged ?? GetOrAddUntagged();
        }

        // Read before the lookup, so that its load overlaps the call: every index this thread
        // remembered is in it (see ByIndex).
        TSeries[] byIndex = ByIndex;
        int index = RecentTagSets.Find(_owner, tags);
        return index >= 0 ? byIndex[index] : GetOrAddAndRemember(tags, _owner, tags);
    }

    /// <summary>The series for <paramref name="tags"/>, created on first use, marked bound: idle expiry leaves it alone.</summary>
    /// <remarks>A series marked for removal (by <see cref="Remove(TSeries)"/> or idle expiry) and
    /// not yet unlinked is kept: its mark is taken back, so that what the handle adds is exported.</remarks>
    /// <exception cref="ArgumentException">The tags break the rules of <see cref="TagSet.Create"/> or <see cref="TagLimits"/>.</exception>
    public TSeries Bind(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        TSeries series = GetOrAdd(tags);
        if (series.IsBound && !series.IsMarked)
        {
            return series;
        }

        lock (_lock)
        {
            // No unlink runs under the lock: a series unlinked since the lookup gives way to the
            // series of its tags now (a lookup that no longer finds it), and a marked one stays.
            while (series.IsRemoved)
            {
                series = GetOrAdd(tags);
            }

            if (series.IsMarked)
            {
                Unmark(series);
            }

            series.MarkBound();
        }

        return series;
    }

    /// <summary>
    /// The series for <paramref name="tags"/>, created on first use, found by value (not among
    /// the thread's recent tag sets); where <paramref name="tags"/> are this table's own (a
    /// series' tags or an alias), <paramref name="given"/> is remembered on the calling thread as
    /// naming that series for <paramref name="owner"/> (<see cref="RecentTagSets"/>).
    /// </summary>
    /// <remarks>Tag sets that go to the overflow series, or to a series through an alias not
    /// kept, are not remembered: they take this path on every use, as they always did.</remarks>
    /// <exception cref="ArgumentException">The tags break the rules of <see cref="TagSet.Create"/> or <see cref="TagLimits"/>.</exception>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public TSeries GetOrAddAndRemember(ReadOnlySpan<KeyValuePair<string, object?>> tags, long owner, ReadOnlySpan<KeyValuePair<string, object?>> given)
    {
        // Every entry was made by _createSeries, so is a TSeries: no cast check.
        if (_byTags.Find(tags) is { } found)
        {
            RecentTagSets.Remember(owner, given, found.Index);
            return Unsafe.As<TSeries>(found);
        }

        return GetOrAddMissed(tags);
    }

    /// <summary>
    /// The series in creation order, indexed by <see cref="ScalableMetrics.Series.Index"/>, past
    /// <see cref="Count"/> too: the array the table writes into.
    /// </summary>
    /// <remarks>A thread that found a series in this table (and remembered its index) reads,
    /// afterwards, an array that holds it: the array is written and published before the series
    /// is, and a grown array is a copy.</remarks>
    public TSeries[] ByIndex
    {
        // A remembered index never names a null entry: an unlink frees an index only in a copy
        // published after the key that makes its entries stale (see OwnerKey).
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => Volatile.Read(ref _series)!;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private TSeries GetOrAddUntagged()
    {
        TSeries series = GetOrAddMissed([]);

        // Under the lock an unlink takes, so that a series removed meanwhile is never kept here.
        lock (_lock)
        {
            if (!ReferenceEquals(series, _overflow) && !series.IsRemoved)
            {
                _untagged = series;
            }
        }

        return series;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private TSeries GetOrAddMissed(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        _tagLimits.Validate(tags);

        // Under a view that drops keys, a tag set not met before may name an existing series by
        // its kept keys, and once an alias was not kept, a tag set not found here may be that
        // alias: only the lock's path finds their series, past the limit too. The flag is read
        // after the count, so that an alias skipped before the limit was reached is seen set.
        if (Volatile.Read(ref _createdCount) >= MaxSeries && _tagLimits.KeyFilter is null && !Volatile.Read(ref _aliasSkipped))
        {
            // The limit only grows into this state: no lock, no allocation, once the overflow
            // series exists.
            return Volatile.Read(ref _overflow) ?? GetOrAddSlow(tags);
        }

        return GetOrAddSlow(tags);
    }

    private TSeries GetOrAddSlow(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        TagSet tagSet = TagSet.Create(tags);

        // A view's dropped keys leave the identity here, once per tag set: the tag set as given
        // becomes an alias of the series of its kept keys.
        TagSet kept = _tagLimits.KeyFilter?.Apply(tagSet) ?? tagSet;
        KeyValuePair<string, string>[] labels = SeriesIdentity.Labels(kept);
        int identityHash = SeriesIdentity.Hash(labels);
        lock (_lock)
        {
            if (_byTags.Find(tagSet.AsSpan()) is { } found)
            {
                return Unsafe.As<TSeries>(found);
            }

            if (FindByIdentity(identityHash, labels) is { } same)
            {
                if (_aliasCount < MaxSeries)
                {
                    _byTags.AddAlias(tagSet, same);
                    _aliasCount++;
                }
                else
                {
                    Volatile.Write(ref _aliasSkipped, true);
                }

                return same;
            }

            if (_createdCount >= MaxSeries)
            {
                return _overflow ?? CreateOverflow();
            }

            TSeries created = _createSeries(kept);
            if (_epoch > 0)
            {
                // After a removal this may be a removed series' tags again: a new series, from now.
                SeriesStartTimes.StartNow(created);
            }

            Append(created);
            _byIdentity.Add(identityHash, created.Index, _identityHashOf);
            _byTags.Add(created);
            if (!ReferenceEquals(kept, tagSet))
            {
                if (_aliasCount < MaxSeries)
                {
                    _byTags.AddAlias(tagSet, created);
                    _aliasCount++;
                }
                else
                {
                    Volatile.Write(ref _aliasSkipped, true);
                }
            }

            Volatile.Write(ref _createdCount, _createdCount + 1);
            return created;
        }
    }

    // Under _lock. A hash only names candidates: each is confirmed by its labels, recomputed
    // from its tags rather than kept (they would cost every series an array and a string a tag).
    private TSeries? FindByIdentity(int identityHash, ReadOnlySpan<KeyValuePair<string, string>> labels)
    {
        foreach (int index in _byIdentity.Find(identityHash))
        {
            TSeries candidate = _series[index]!;
            if (SeriesIdentity.Equal(SeriesIdentity.Labels(candidate.Tags), labels))
            {
                return candidate;
            }
        }

        return null;
    }

    // Under _lock.
    private TSeries CreateOverflow()
    {
        TSeries overflow = _createSeries(s_overflowTags);
        Append(overflow);
        Volatile.Write(ref _overflow, overflow);
        return overflow;
    }

    // Under _lock.
    private void Append(TSeries series)
    {
        if (_freeIndexes is { Count: > 0 } free)
        {
            // A free index is null in the array published by the unlink that freed it, after the
            // key that made every entry naming it stale.
            int index = free.Pop();
            Debug.Assert(_series[index] is null, "a free index names no series");
            series.Index = index;
            Volatile.Write(ref _series[index], series);
        }
        else
        {
            if (_count == _series.Length)
            {
                // Twice the room, but never past the limit's series and the overflow series: the
                // most indexes a table gives (a removed series' index is reused first).
                Debug.Assert(_count <= MaxSeries, "no more indexes than the limit's series and the overflow series");
                // In long: a limit of int.MaxValue and its overflow series do not fit an int.
                var grown = new TSeries?[Math.Max(_count + 1, (int)Math.Min(2L * _series.Length, MaxSeries + 1L))];
                Array.Copy(_series, grown, _count);
                Volatile.Write(ref _series, grown);
            }

            series.Index = _count;
            _series[_count] = series;
            Volatile.Write(ref _count, _count + 1);
        }

        if (_idleCounts is not null && series.Index < _idleCounts.Length)
        {
            _idleCounts[series.Index] = -1;
        }

        LiveSeries live = _live;
        if (_epoch == 0)
        {
            // The entry is written above, at the index that is its place in creation order.
            Debug.Assert(live.Count == series.Index, "no index was freed while the arrays are shared");
            Volatile.Write(ref _live, new LiveSeries(_series!, live.Count + 1));
            return;
        }

        TSeries[] array = live.Array;
        if (live.Count == array.Length)
        {
            array = new TSeries[array.Length * 2];
            Array.Copy(live.Array, array, live.Count);
        }

        // Written past every published count, then published with its count.
        array[live.Count] = series;
        Volatile.Write(ref _live, new LiveSeries(array, live.Count + 1));
    }

    // Under _lock. Marks a series of this table for removal, once; never the overflow series,
    // which takes what the limit turns away. A partitioned series stops taking promotions and
    // keeps its final reading from here on (PartitionedSeries.Retire).
    private bool Mark(TSeries series)
    {
        if (series.IsMarked || ReferenceEquals(series, _overflow))
        {
            return false;
        }

        series.MarkForRemoval();

        // A full fence between the mark and the count read (as BeginRead's increment is one), so
        // that a collection numbered past the count sees the mark in its read (Dekker's pattern).
        long markedAt = Interlocked.CompareExchange(ref _reads, 0, 0);
        (_removing ??= []).Add((series, markedAt));
        Volatile.Write(ref _pendingWork, _pendingWork + 1);
        return true;
    }

    // Under _lock: takes back a mark before the series' unlink. A collection that read it since
    // exported it as any other; the next reads it as any other too.
    private void Unmark(TSeries series)
    {
        _removing!.RemoveAll(entry => ReferenceEquals(entry.Series, series));
        Volatile.Write(ref _pendingWork, _removing.Count + (_retired?.Count ?? 0));
        series.CancelRemoval();
        if (_idleCounts is not null && series.Index < _idleCounts.Length)
        {
            _idleCounts[series.Index] = -1;
        }
    }

    // Under _lock: idle expiry. Each series read keeps its reading's digest and the collections in a
    // row that read it unchanged (by index; -1: none read yet); at idleCollections it is marked, and
    // the next collection exports it a last time. A bound series is in use, and never expires.
    private void MarkIdle(InstrumentSnapshot snapshot, int idleCollections)
    {
        if (_idleCounts is null || _idleCounts.Length < _series.Length)
        {
            int from = _idleCounts?.Length ?? 0;
            Array.Resize(ref _idleCounts, _series.Length);
            Array.Resize(ref _digests, _series.Length);
            _idleCounts.AsSpan(from).Fill(-1);
        }

        for (int i = 0; i < snapshot.Count; i++)
        {
            var series = (TSeries)snapshot.KeyAt(i);
            int index = series.Index;
            if (series.IsMarked || !ReferenceEquals(_series[index], series))
            {
                continue;
            }

            long digest = snapshot.DigestAt(i);
            if (_idleCounts[index] < 0 || _digests![index] != digest)
            {
                _digests![index] = digest;
                _idleCounts[index] = 0;
            }
            else if (++_idleCounts[index] >= idleCollections && !series.IsBound)
            {
                Mark(series);
            }
        }
    }

    // Under _lock: unlinks the marked series that collection read (numbered past their mark) read.
    private void UnlinkReadBefore(List<(TSeries Series, long MarkedAt)> removing, long read)
    {
        int unlinked = 0;
        foreach ((TSeries series, long markedAt) in removing)
        {
            if (markedAt < read)
            {
                Unlink(series);
                unlinked++;
            }
        }

        if (unlinked == 0)
        {
            return;
        }

        removing.RemoveAll(entry => entry.Series.IsRemoved);

        // Every thread's entries of this table (and its recorders) stale first, then the arrays
        // they index: a thread that reads a new array reads the new key after it.
        _epoch++;
        Volatile.Write(ref _owner, OwnerKey(_ownerNumber, _epoch));
        var byIndex = (TSeries?[])_series.Clone();
        var live = new TSeries[Math.Max(4, _live.Array.Length)];
        int count = 0;
        foreach (TSeries series in Series)
        {
            if (series.IsRemoved)
            {
                byIndex[series.Index] = null;
                (_freeIndexes ??= new Stack<int>()).Push(series.Index);
            }
            else
            {
                live[count++] = series;
            }
        }

        Volatile.Write(ref _series, byIndex);
        Volatile.Write(ref _live, new LiveSeries(live, count));
    }

    // Under _lock: takes one marked series out of the lookup, its identity and the limit's count;
    // its retired entry (a partitioned series') waits for its memory's reclaim, and a gauge's series
    // for its finalization (FinalizedRemovals).
    private void Unlink(TSeries series)
    {
        _aliasCount -= _byTags.Remove(series);
        _byIdentity.Remove(SeriesIdentity.Hash(SeriesIdentity.Labels(series.Tags)), series.Index);
        if (ReferenceEquals(_untagged, series))
        {
            _untagged = null;
        }

        series.MarkRemoved(_finalized);
        if (series.Retirement is { } retired)
        {
            (_retired ??= []).Add(retired);
        }

        Volatile.Write(ref _createdCount, _createdCount - 1);
    }

    /// <summary>The live series and how many: published together, so that a reader never pairs an array with another's count.</summary>
    private sealed class LiveSeries(TSeries[] array, int count)
    {
        public TSeries[] Array { get; } = array;

        public int Count { get; } = count;
    }
}
