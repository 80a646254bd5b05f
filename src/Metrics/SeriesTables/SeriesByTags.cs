using System.Runtime.CompilerServices;
using ScalableMetrics.Tags;

namespace ScalableMetrics.SeriesTables;

/// <summary>
/// Tag sets to series, read without a lock: an open-addressing table of series references keyed
/// by each series' own tags (8 bytes a slot, no node per series), and a second one, empty until
/// needed, of aliases (tag sets that export like a series' own, <see cref="SeriesTable{TSeries}"/>).
/// </summary>
/// <remarks>
/// <para>Linear probing, at most three quarters full counting the tombstones removed series leave
/// (<see cref="Remove"/>: an entry replaced by <see cref="s_removed"/>, which keeps probe sequences
/// going, matches nothing and is dropped when the table is rebuilt). A lookup hashes the
/// caller's tags in place (<see cref="TagSetComparer.Hash(ReadOnlySpan{KeyValuePair{string, object}}, StringHashCache)"/>,
/// the strings its series were created with hashed once, <see cref="StringHashCache"/>), compares that with each probed
/// series' stored hash, and only then the tags (<see cref="TagSetComparer.MatchesStored"/>): it
/// allocates nothing and takes no lock.</para>
/// <para>Writes are made under the series table's lock. A slot goes from null to a fully built
/// series once (a release write), and a grown table is filled before it is published, so that a
/// reader sees either the entry or a null that ends its probe; a reader still on an older table
/// misses only entries added since, and the caller's miss path looks again under the lock.</para>
/// </remarks>
internal sealed class SeriesByTags
{
    private static readonly Series s_removed = new Removed();

    // The hashes of the strings the series were created with, so that a caller passing the same
    // strings does not hash their characters again on every lookup.
    private readonly StringHashCache _strings = new();
    private Series?[] _series = new Series?[8];

    // Entries and tombstones: what fills the probe sequences.
    private int _seriesCount;
    private int _removedCount;
    private Alias?[]? _aliases;
    private int _aliasCount;

    /// <summary>The series whose tags, or one of whose aliases, equal <paramref name="tags"/> (the caller's, any order), or null.</summary>
    public Series? Find(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        int hash = TagSetComparer.Hash(tags, _strings);
        Series?[] table = Volatile.Read(ref _series);
        int mask = table.Length - 1;
        for (int i = hash & mask; ; i = (i + 1) & mask)
        {
            Series? series = table[i];
            if (series is null)
            {
                break;
            }

            TagSet stored = series.Tags;
            if (stored.GetHashCode() == hash && !ReferenceEquals(series, s_removed) && TagSetComparer.MatchesStored(stored.AsSpan(), tags))
            {
                return series;
            }
        }

        return Volatile.Read(ref _aliases) is { } aliases ? FindAlias(aliases, hash, tags) : null;
    }

    /// <summary>Adds <paramref name="series"/> under its own tags, which no entry holds yet. Under the series table's lock.</summary>
    public void Add(Series series)
    {
        if ((_seriesCount + 1) * 4 > _series.Length * 3)
        {
            // Twice the room, unless dropping the tombstones leaves room enough.
            int live = _seriesCount - _removedCount;
            var grown = new Series?[(live + 1) * 2 > _series.Length ? _series.Length * 2 : _series.Length];
            foreach (Series? entry in _series)
            {
                if (entry is not null && !ReferenceEquals(entry, s_removed))
                {
                    Insert(grown, entry.Tags.GetHashCode(), entry);
                }
            }

            Volatile.Write(ref _series, grown);
            _seriesCount = live;
            _removedCount = 0;
        }

        Insert(_series, series.Tags.GetHashCode(), series);
        _seriesCount++;
        CacheStrings(series.Tags);
    }

    /// <summary>Adds <paramref name="tags"/>, which no entry holds yet, as an alias of <paramref name="series"/>. Under the series table's lock.</summary>
    public void AddAlias(TagSet tags, Series series)
    {
        Alias?[] aliases = _aliases ?? new Alias?[8];
        if ((_aliasCount + 1) * 4 > aliases.Length * 3)
        {
            var grown = new Alias?[aliases.Length * 2];
            foreach (Alias? entry in aliases)
            {
                if (entry is not null)
                {
                    Insert(grown, entry.Tags.GetHashCode(), entry);
                }
            }

            aliases = grown;
        }

        Insert(aliases, tags.GetHashCode(), new Alias(tags, series));
        CacheStrings(tags);
        Volatile.Write(ref _aliases, aliases);
        _aliasCount++;
    }

    /// <summary>
    /// Takes <paramref name="series"/> and every alias of it out of the lookup: a tombstone in its
    /// entry, and an alias table rebuilt without its aliases (published whole, so that a reader
    /// sees the old table or the new). Under the series table's lock.
    /// </summary>
    /// <returns>The aliases removed.</returns>
    public int Remove(Series series)
    {
        Series?[] table = _series;
        int mask = table.Length - 1;
        for (int i = series.Tags.GetHashCode() & mask; table[i] is { } entry; i = (i + 1) & mask)
        {
            if (ReferenceEquals(entry, series))
            {
                Volatile.Write(ref table[i], s_removed);
                _removedCount++;
                break;
            }
        }

        if (_aliases is not { } aliases || Array.FindIndex(aliases, alias => alias is not null && ReferenceEquals(alias.Series, series)) < 0)
        {
            return 0;
        }

        var kept = new Alias?[aliases.Length];
        int removed = 0;
        foreach (Alias? alias in aliases)
        {
            if (alias is null)
            {
                continue;
            }

            if (ReferenceEquals(alias.Series, series))
            {
                removed++;
            }
            else
            {
                Insert(kept, alias.Tags.GetHashCode(), alias);
            }
        }

        Volatile.Write(ref _aliases, kept);
        _aliasCount -= removed;
        return removed;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static Series? FindAlias(Alias?[] aliases, int hash, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        int mask = aliases.Length - 1;
        for (int i = hash & mask; aliases[i] is { } alias; i = (i + 1) & mask)
        {
            if (alias.Tags.GetHashCode() == hash && TagSetComparer.MatchesStored(alias.Tags.AsSpan(), tags))
            {
                return alias.Series;
            }
        }

        return null;
    }

    // Under the series table's lock.
    private void CacheStrings(TagSet tags)
    {
        foreach (KeyValuePair<string, object?> tag in tags.AsSpan())
        {
            _strings.Add(tag.Key);
            if (tag.Value is string text)
            {
                _strings.Add(text);
            }
        }
    }

    private static void Insert<T>(T?[] table, int hash, T entry)
        where T : class
    {
        int mask = table.Length - 1;
        int i = hash & mask;
        while (table[i] is not null)
        {
            i = (i + 1) & mask;
        }

        Volatile.Write(ref table[i], entry);
    }

    /// <summary>The tombstone of a removed series' entry: never returned by a lookup (tested by reference).</summary>
    private sealed class Removed() : Series(TagSet.Create([]));

    /// <summary>A tag set that records into a series other than by its own tags.</summary>
    private sealed class Alias(TagSet tags, Series series)
    {
        public TagSet Tags { get; } = tags;

        public Series Series { get; } = series;
    }
}
