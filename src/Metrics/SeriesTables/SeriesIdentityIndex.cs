using ScalableMetrics.Naming;

namespace ScalableMetrics.SeriesTables;

/// <summary>
/// The series of one instrument by exported identity, in 8 bytes a slot: an open-addressing table
/// of (32-bit identity hash, series index) pairs (<see cref="SeriesIdentity.Hash"/>), no key kept.
/// A hash names candidates only; the caller confirms one by recomputing the candidate's exported
/// labels from its tags (<see cref="SeriesIdentity.Labels"/>), which costs an allocation only on
/// the path that creates a series.
/// </summary>
/// <remarks>
/// Linear probing, at most three quarters full counting the tombstones a removed series leaves
/// (<see cref="Remove"/>), which a growth drops. The hash is seeded per process
/// (<see cref="HashCode"/>), so that a caller cannot choose tags whose identities collide. Not
/// thread-safe: used under the series table's lock.
/// </remarks>
internal sealed class SeriesIdentityIndex
{
    // A removed entry: it keeps probe sequences going and names no series (an entry's low half,
    // an index plus one, is never 0xFFFFFFFF).
    private const long Tombstone = -1;

    // 0: empty; otherwise the identity hash in the high half and the series index plus one in the low.
    private long[] _slots = new long[8];

    // Entries and tombstones: what fills the probe sequences.
    private int _used;
    private int _count;

    /// <summary>Records that series <paramref name="seriesIndex"/> (0 or more) has identity hash <paramref name="identityHash"/>.</summary>
    public void Add(int identityHash, int seriesIndex)
    {
        if ((_used + 1) * 4 > _slots.Length * 3)
        {
            // Twice the room, unless dropping the tombstones leaves room enough.
            var grown = new long[(_count + 1) * 2 > _slots.Length ? _slots.Length * 2 : _slots.Length];
            foreach (long entry in _slots)
            {
                if (entry is not 0 and not Tombstone)
                {
                    Insert(grown, entry);
                }
            }

            _slots = grown;
            _used = _count;
        }

        Insert(_slots, ((long)identityHash << 32) | (uint)(seriesIndex + 1));
        _used++;
        _count++;
    }

    /// <summary>Forgets that series <paramref name="seriesIndex"/> has identity hash <paramref name="identityHash"/>: its series was removed.</summary>
    /// <returns>Whether the pair was recorded.</returns>
    public bool Remove(int identityHash, int seriesIndex)
    {
        long wanted = ((long)identityHash << 32) | (uint)(seriesIndex + 1);
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

    /// <summary>The indexes of the series whose identity hash is <paramref name="identityHash"/>: candidates, to be confirmed.</summary>
    public Candidates Find(int identityHash) => new(_slots, identityHash);

    private static void Insert(long[] slots, long entry)
    {
        int mask = slots.Length - 1;
        int i = (int)(entry >> 32) & mask;
        while (slots[i] is not 0 and not Tombstone)
        {
            i = (i + 1) & mask;
        }

        slots[i] = entry;
    }

    /// <summary>Walks the probe sequence of one hash: <c>foreach (int index in index.Find(hash))</c>.</summary>
    public ref struct Candidates
    {
        private readonly long[] _slots;
        private readonly int _hash;
        private int _at;

        /// <summary>Starts the walk of <paramref name="hash"/>'s probe sequence in <paramref name="slots"/>.</summary>
        public Candidates(long[] slots, int hash)
        {
            _slots = slots;
            _hash = hash;
            _at = (hash & (slots.Length - 1)) - 1;
            Current = -1;
        }

        /// <summary>The candidate series' index.</summary>
        public int Current { get; private set; }

        /// <summary>This walk, for <c>foreach</c>.</summary>
        public readonly Candidates GetEnumerator() => this;

        /// <summary>Moves to the next entry of the hash; false at the end of its probe sequence.</summary>
        public bool MoveNext()
        {
            int mask = _slots.Length - 1;
            while (true)
            {
                _at = (_at + 1) & mask;
                long entry = _slots[_at];
                if (entry == 0)
                {
                    return false;
                }

                if (entry != Tombstone && (int)(entry >> 32) == _hash)
                {
                    Current = (int)(uint)entry - 1;
                    return true;
                }
            }
        }
    }
}
