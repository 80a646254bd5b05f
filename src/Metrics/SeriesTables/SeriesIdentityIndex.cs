using System.Diagnostics;
using System.Numerics;
using ScalableMetrics.Naming;

namespace ScalableMetrics.SeriesTables;

/// <summary>
/// The series of one instrument by exported identity, in 4 bytes a slot: an open-addressing table
/// of (identity hash tag, series index) pairs (<see cref="SeriesIdentity.Hash"/>), no key kept.
/// A hash names candidates only; the caller confirms one by recomputing the candidate's exported
/// labels from its tags (<see cref="SeriesIdentity.Labels"/>), which costs an allocation only on
/// the path that creates a series.
/// </summary>
/// <remarks>
/// <para>An entry holds the series index in as many bits as the table's largest index needs (11
/// at OpenTelemetry's default series limit of 2,000) and, in the bits above it, a tag taken from
/// the identity hash: a candidate whose tag differs is skipped without recomputing its labels (at
/// the default limit a tag has 20 bits, so about one entry in a million is confirmed in vain).
/// The full hash is not kept, so a growth asks the caller for each entry's hash again
/// (<see cref="Add"/>'s <c>identityHashOf</c>): as many label computations as entries, once per
/// doubling, on the path that creates a series.</para>
/// <para>Linear probing, at most three quarters full counting the tombstones a removed series
/// leaves (<see cref="Remove"/>), which a growth drops. The hash is seeded per process
/// (<see cref="HashCode"/>), so that a caller cannot choose tags whose identities collide. Not
/// thread-safe: used under the series table's lock.</para>
/// </remarks>
internal sealed class SeriesIdentityIndex
{
    // An entry has this bit set; 0 is an empty slot.
    private const int Occupied = int.MinValue;

    // A removed entry: it keeps probe sequences going and names no series (not Occupied, not 0).
    private const int Tombstone = 1;

    // The series index's bits; the tag is in the bits between them and Occupied.
    private readonly int _indexBits;

    // 0: empty; Tombstone; otherwise Occupied, the hash's tag and the series index.
    private int[] _slots = new int[8];

    // Entries and tombstones: what fills the probe sequences.
    private int _used;
    private int _count;

    /// <summary>Creates an empty index of series whose indexes are at most <paramref name="maxIndex"/> (0 or more).</summary>
    /// <param name="maxIndex">The largest series index the table gives: its series limit (the overflow series' place).</param>
    public SeriesIdentityIndex(int maxIndex)
    {
        Debug.Assert(maxIndex >= 0, "an index is 0 or more");

        // At most 28 bits (Series.Index's), so that a tag keeps at least 3.
        _indexBits = Math.Clamp(32 - BitOperations.LeadingZeroCount((uint)maxIndex), 1, 28);
    }

    /// <summary>Records that series <paramref name="seriesIndex"/> (0 to the largest index given at creation) has identity hash <paramref name="identityHash"/>.</summary>
    /// <param name="identityHash">The series' identity hash.</param>
    /// <param name="seriesIndex">The series' index.</param>
    /// <param name="identityHashOf">The identity hash of the series at an index recorded before: called for each entry when the table grows.</param>
    public void Add(int identityHash, int seriesIndex, Func<int, int> identityHashOf)
    {
        Debug.Assert((uint)seriesIndex < 1u << _indexBits, "an index within the series limit");
        if ((_used + 1) * 4 > _slots.Length * 3)
        {
            // Twice the room, unless dropping the tombstones leaves room enough.
            int[] old = _slots;
            _slots = new int[(_count + 1) * 2 > old.Length ? old.Length * 2 : old.Length];
            foreach (int entry in old)
            {
                if (entry < 0)
                {
                    Insert(identityHashOf(entry & IndexMask), entry);
                }
            }

            _used = _count;
        }

        Insert(identityHash, Entry(identityHash, seriesIndex));
        _used++;
        _count++;
    }

    /// <summary>Forgets that series <paramref name="seriesIndex"/> has identity hash <paramref name="identityHash"/>: its series was removed.</summary>
    /// <returns>Whether the pair was recorded.</returns>
    public bool Remove(int identityHash, int seriesIndex)
    {
        int wanted = Entry(identityHash, seriesIndex);
        int mask = _slots.Length - 1;
        for (int i = identityHash & mask; _slots[i] != 0; i = (i + 1) & mask)
        {
            if (_slots[i] == wanted)
            {
                _slots[i] = Tombstone;
                _count--;
                return true;
            }
        }

        return false;
    }

    /// <summary>The indexes of the series whose identity hash may be <paramref name="identityHash"/>: candidates, to be confirmed.</summary>
    public Candidates Find(int identityHash) => new(_slots, identityHash, TagOf(identityHash), IndexMask);

    private int IndexMask => (1 << _indexBits) - 1;

    // The tag bits of an entry for identityHash: the bits above the index of the hash multiplied
    // by 2^32 / φ (Fibonacci hashing), which carries every bit of the hash into them.
    private int TagOf(int identityHash) => (int)((uint)identityHash * 0x9E3779B9u) & ~IndexMask & ~Occupied;

    private int Entry(int identityHash, int seriesIndex) => Occupied | TagOf(identityHash) | seriesIndex;

    private void Insert(int identityHash, int entry)
    {
        int mask = _slots.Length - 1;
        int i = identityHash & mask;
        while (_slots[i] != 0 && _slots[i] != Tombstone)
        {
            i = (i + 1) & mask;
        }

        _slots[i] = entry;
    }

    /// <summary>Walks the probe sequence of one hash: <c>foreach (int index in index.Find(hash))</c>.</summary>
    public ref struct Candidates
    {
        private readonly int[] _slots;
        private readonly int _tag;
        private readonly int _indexMask;
        private int _at;

        /// <summary>Starts the walk of <paramref name="hash"/>'s probe sequence in <paramref name="slots"/>, for entries of tag <paramref name="tag"/>.</summary>
        public Candidates(int[] slots, int hash, int tag, int indexMask)
        {
            _slots = slots;
            _tag = tag;
            _indexMask = indexMask;
            _at = (hash & (slots.Length - 1)) - 1;
            Current = -1;
        }

        /// <summary>The candidate series' index.</summary>
        public int Current { get; private set; }

        /// <summary>This walk, for <c>foreach</c>.</summary>
        public readonly Candidates GetEnumerator() => this;

        /// <summary>Moves to the next entry of the hash's tag; false at the end of its probe sequence.</summary>
        public bool MoveNext()
        {
            int mask = _slots.Length - 1;
            while (true)
            {
                _at = (_at + 1) & mask;
                int entry = _slots[_at];
                if (entry == 0)
                {
                    return false;
                }

                if (entry < 0 && (entry & ~Occupied & ~_indexMask) == _tag)
                {
                    Current = entry & _indexMask;
                    return true;
                }
            }
        }
    }
}
