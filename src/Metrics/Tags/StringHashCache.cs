using System.Runtime.CompilerServices;

namespace ScalableMetrics.Tags;

/// <summary>
/// The hash codes of the strings an instrument's series were created with (their keys and string
/// values), found by the string's reference, so that a caller who passes the very same strings
/// (literals, cached route templates) is not charged a hash of their characters on every lookup.
/// </summary>
/// <remarks>
/// <para>A hit returns exactly <see cref="string.GetHashCode()"/> of that string (strings are
/// immutable), and a miss computes it: which strings are cached changes the cost of a lookup,
/// never its result.</para>
/// <para>Direct-mapped by <see cref="RuntimeHelpers.GetHashCode(object)"/>, doubled while at most
/// half full up to <see cref="MaxEntries"/> slots; a slot, once filled, is never overwritten, so
/// that the first strings met (an instrument's keys come with its first series) stay and a stream
/// of new values allocates nothing once the table is full. Each slot holds an immutable entry
/// published by one reference write, so that a reader without a lock sees a whole entry or
/// none.</para>
/// <para>Reads are thread-safe and take no lock; <see cref="Add"/> is made under the owner's lock.</para>
/// </remarks>
internal sealed class StringHashCache
{
    /// <summary>The most slots: 8 KB of references and at most one 32-byte entry each, an instrument's bound.</summary>
    public const int MaxEntries = 1024;

    /// <summary>Strings shorter than this hash about as fast as the cache finds them: not cached.</summary>
    public const int MinLength = 8;

    private Entry?[] _entries = new Entry?[16];
    private int _count;

    /// <summary>The hash of <paramref name="text"/>: <see cref="string.GetHashCode()"/>, from the cache when this very string is in it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Hash(string text)
    {
        if (text.Length < MinLength)
        {
            return text.GetHashCode();
        }

        Entry?[] entries = Volatile.Read(ref _entries);
        Entry? entry = entries[RuntimeHelpers.GetHashCode(text) & (entries.Length - 1)];
        return entry is not null && ReferenceEquals(entry.Text, text) ? entry.Hash : text.GetHashCode();
    }

    /// <summary>Caches the hash of <paramref name="text"/> if its slot is free. Under the owner's lock.</summary>
    public void Add(string text)
    {
        if (text.Length < MinLength)
        {
            return;
        }

        if (_count * 2 >= _entries.Length && _entries.Length < MaxEntries)
        {
            // Doubling moves each entry to its own index or that plus the old length: no two meet.
            var grown = new Entry?[_entries.Length * 2];
            foreach (Entry? entry in _entries)
            {
                if (entry is not null)
                {
                    grown[entry.Identity & (grown.Length - 1)] = entry;
                }
            }

            Volatile.Write(ref _entries, grown);
        }

        int identity = RuntimeHelpers.GetHashCode(text);
        ref Entry? slot = ref _entries[identity & (_entries.Length - 1)];
        if (slot is null)
        {
            Volatile.Write(ref slot, new Entry(text, text.GetHashCode(), identity));
            _count++;
        }
    }

    /// <summary>One cached string, immutable so that it is published whole.</summary>
    private sealed class Entry(string text, int hash, int identity)
    {
        public string Text { get; } = text;

        public int Hash { get; } = hash;

        public int Identity { get; } = identity;
    }
}
