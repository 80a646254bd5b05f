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
/// Linear probing, at most three quarters full, never deleted from. The hash is seeded per process
/// (<see cref="HashCode"/>), so that a caller cannot choose tags whose identities collide. Not
/// thread-safe: used under the series table's lock.
/// </remarks>
internal sealed class SeriesIdentityIndex
{
    // 0: empty; otherwise the identity hash in the high half and the series index plus one in the low.
    private long[] _slots = new long[8];
    private int _count;

    /// <summary>Records that series <paramref name="seriesIndex"/> (0 or more) has identity hash <paramref name="identityHash"/>.</summary>
    public void Add(int identityHash, int seriesIndex)
    {
        if ((_count + 1) * 4 > _slots.Length * 3)
        {
            var grown = new long[_slots.Length * 2];
            foreach (long entry in _slots)
            {
                if (entry != 0)
                {
                    Insert(grown, entry);
                }
            }

            _slots = grown;
        }

        Insert(_slots, ((long)identityHash << 32) | (uint)(seriesIndex + 1));
        _count++;
    }

    /// <summary>The indexes of the series whose identity hash is <paramref name="identityHash"/>: candidates, to be confirmed.</summary>
    public Candidates Find(int identityHash) => new(_slots, identityHash);

    private static void Insert(long[] slots, long entry)
    {
        int mask = slots.Length - 1;
        int i = (int)(entry >> 32) & mask;
        while (slots[i] != 0)
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

        public Candidates(long[] slots, int hash)
        {
            _slots = slots;
            _hash = hash;
            _at = (hash & (slots.Length - 1)) - 1;
            Current = -1;
        }

        /// <summary>The candidate series' index.</summary>
        public int Current { get; private set; }

        public readonly Candidates GetEnumerator() => this;

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

                if ((int)(entry >> 32) == _hash)
                {
                    Current = (int)(uint)entry - 1;
                    return true;
                }
            }
        }
    }
}
