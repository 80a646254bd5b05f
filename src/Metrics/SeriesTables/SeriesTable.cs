using System.Runtime.CompilerServices;
using ScalableMetrics.Naming;
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
/// met before the limit was reached. No value is lost.</para>
/// <para><b>Memory.</b> Every series costs the table a few slots of 8 bytes and no object of its
/// own: a reference in the lookup (<see cref="SeriesByTags"/>), one in the creation-order array,
/// and an (identity hash, index) pair (<see cref="SeriesIdentityIndex"/>); no identity key or
/// exported label is kept, they are recomputed on the path that creates a series.</para>
/// <para><b>Views.</b> Where a view keeps or drops tag keys (<see cref="TagLimits.KeyFilter"/>),
/// a tag set met for the first time is cut to its kept keys before its identity is taken: the
/// series holds only those, and the tag set as given is kept as its alias, so that its next lookup
/// is the fast one and tag sets that differ only in dropped keys record into one series. Past the
/// limit, such a tag set still finds its series by its kept keys (under the lock, until an alias
/// is kept for it).</para>
/// <para>Thread-safe.</para>
/// </remarks>
/// <typeparam name="TSeries">The instrument's bound series type.</typeparam>
internal sealed class SeriesTable<TSeries>
    where TSeries : Series
{
    private static readonly TagSet s_overflowTags = TagSet.Create(new KeyValuePair<string, object?>(ExportedNames.OverflowTagKey, true));

    // This table's entries among each thread's recent tag sets.
    private readonly long _owner = RecentTagSets.NewOwner();

    // Every tag set met (created or alias) to its series: read without a lock, written under _lock.
    private readonly SeriesByTags _byTags = new();

    // Exported identity hash to the series' index in _series; only under _lock.
    private readonly SeriesIdentityIndex _byIdentity = new();
    private readonly Func<TagSet, TSeries> _createSeries;
    private readonly TagLimits _tagLimits;
    private readonly Lock _lock = new();

    // The distinct series, the overflow series included, in creation order: the first _count
    // entries. An entry is written before _count is raised past it, and a grown array is
    // published before _count, so a reader that reads _count and then _series sees them all.
    private TSeries[] _series = new TSeries[4];
    private int _count;

    // Series created for callers' tag sets (not the overflow series): the limit's count, read
    // without a lock on the miss path and raised under _lock.
    private int _createdCount;
    private int _aliasCount;
    private TSeries? _overflow;
    private TSeries? _untagged;

    public SeriesTable(int maxSeries, TagLimits tagLimits, Func<TagSet, TSeries> createSeries)
    {
        MaxSeries = maxSeries;
        _tagLimits = tagLimits;
        _createSeries = createSeries;
    }

    /// <summary>The most series this table creates for callers' tag sets before it sends new tag sets to the overflow series.</summary>
    public int MaxSeries { get; }

    /// <summary>The number of distinct series, the overflow series included once it exists.</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>The distinct series, each once (aliases are not repeated), in creation order: a snapshot.</summary>
    public ArraySegment<TSeries> Series
    {
        get
        {
            int count = Volatile.Read(ref _count);
            return new ArraySegment<TSeries>(Volatile.Read(ref _series), 0, count);
        }
    }

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
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => Volatile.Read(ref _series);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private TSeries GetOrAddUntagged()
    {
        TSeries series = GetOrAddMissed([]);
        if (!ReferenceEquals(series, _overflow))
        {
            _untagged = series;
        }

        return series;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private TSeries GetOrAddMissed(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        _tagLimits.Validate(tags);

        // Under a view that drops keys, a tag set not met before may name an existing series by
        // its kept keys: only the lock's path finds it, past the limit too.
        if (Volatile.Read(ref _createdCount) >= MaxSeries && _tagLimits.KeyFilter is null)
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

                return same;
            }

            if (_createdCount >= MaxSeries)
            {
                return _overflow ?? CreateOverflow();
            }

            TSeries created = _createSeries(kept);
            _byIdentity.Add(identityHash, _count);
            Append(created);
            _byTags.Add(created);
            if (!ReferenceEquals(kept, tagSet) && _aliasCount < MaxSeries)
            {
                _byTags.AddAlias(tagSet, created);
                _aliasCount++;
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
            TSeries candidate = _series[index];
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
        if (_count == _series.Length)
        {
            var grown = new TSeries[_series.Length * 2];
            Array.Copy(_series, grown, _count);
            Volatile.Write(ref _series, grown);
        }

        series.Index = _count;
        _series[_count] = series;
        Volatile.Write(ref _count, _count + 1);
    }
}
