using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ScalableMetrics.Tags;

/// <summary>
/// The lookup's fast path: the calling thread's recent tag sets, each as the caller passed it
/// (the very key and value objects, in the caller's order) with the index of the series it
/// names, so that a caller who passes the same strings and boxes again finds its series by
/// comparing references, without hashing a character or taking a lock.
/// </summary>
/// <remarks>
/// <para><b>Per thread.</b> Every read and write is of the calling thread's own entries: a hit
/// writes no shared memory and needs no fence, and remembering a tag set (on a miss) allocates
/// nothing once the thread's entries exist (<see cref="Entries"/> of them, about 11 KB, made on
/// the thread's first remembered tag set). Nothing here runs code of the caller's, so no lookup
/// can re-enter another on the same thread.</para>
/// <para><b>Keyed by owner.</b> An owner (<see cref="NewOwner"/>: a series table, or a recorder
/// that adds its source's tags, <see cref="Recording.SeriesRecorder{TSeries}"/>) is a number,
/// never reused; an entry holds that number and a series index, not the owner or the series, so
/// that a dropped registry is not kept alive by the threads that once recorded into it. What an entry does keep alive is the
/// caller's keys and values of its tag set: at most <see cref="MaxTags"/> pairs an entry,
/// replaced as the thread meets other tag sets.</para>
/// <para><b>By address, then by value.</b> A lookup first sums the addresses of the caller's
/// keys and values (<see cref="AddressHash"/>: a load, a rotate and an add a word) and tries the
/// entry an index of such sums names, comparing the caller's tags with the entry's reference by
/// reference: the same objects in the same order. An address is only a hint (the GC moves objects,
/// and two tag sets may share an index slot); the comparison decides, on references the GC
/// updates, never on addresses read as numbers. Where that fails, the two
/// entries of the set that a hash of the values picks (<see cref="ValueHash"/>: a string's
/// length and two of its characters, a boxed number's value; no call, and no dependence on the
/// order) are compared by reference, and else by pairing the tags in any order, keys by ordinal
/// equality and values by equality of one type (<see cref="SameValue"/>). The caller's form is
/// then indexed by its addresses: in the entry found, where the caller's values are new
/// strings or new boxes; in the set's other entry, where they are the entry's objects in
/// another order (a caller that alternates two orders keeps both). So a tag set rebuilt from
/// new objects, given in another order, or moved by the GC, is found on the second path, and
/// the same objects' next lookup on the first. Values a caller makes collide only cost this
/// thread a miss: the full lookup that follows (seeded, <see cref="TagSetComparer"/>) and a
/// rewrite of one of its own entries.</para>
/// <para><b>Misses cost little.</b> Remembering writes only the caller's tags into the entry
/// written longest ago, no more references than they hold (each goes through the GC's write
/// barrier). A thread whose lookups keep missing (more distinct tag sets in turn than it has
/// entries) rests: past <see cref="Patience"/> misses in a row, only one lookup in
/// <see cref="Resting"/> looks and remembers, and the rest go straight to the full lookup, as
/// they did before there were entries.</para>
/// <para><b>Never looser than the full lookup.</b> An entry's tag set named its series there;
/// the caller's tags equal it object for object, or value for value of the same type, which
/// normalizes alike. Strings are immutable, and boxed primitives are taken to be, as
/// <see cref="TagValues.EqualsNormalized"/> and <see cref="TagSet"/> (which keeps a caller's
/// <see cref="long"/>, <see cref="double"/> and <see cref="bool"/> boxes) already take them.</para>
/// </remarks>
internal static class RecentTagSets
{
    /// <summary>The most tags a remembered tag set has: larger ones always take the full lookup.</summary>
    /// <remarks>8, the tags a <c>TagList</c> holds without an array of its own.</remarks>
    public const int MaxTags = 8;

    /// <summary>A thread's entries: 32 sets of 2, a set picked by the value hash.</summary>
    public const int Entries = Sets * Ways;

    private const int Sets = 32;
    private const int SetShift = 32 - 5;
    private const int Ways = 2;

    // The address index: 512 slots (so that a thread's few hot tag sets rarely share one), each
    // an entry's number plus one (0: none).
    private const int AddressSlots = 512;
    private const int AddressShift = 32 - 9;

    /// <summary>Lookups in a row that found nothing, from which a thread rests (see remarks).</summary>
    public const int Patience = 64;

    /// <summary>A resting thread looks (and remembers) once in this many lookups.</summary>
    public const int Resting = 16;

    // A KeyValuePair of two references is two words on every platform.
    private const int WordsPerTag = 2;

    private static long s_lastOwner;

    // The runtime's t_ prefix for a thread static; the naming rule cannot tell one from a static.
#pragma warning disable IDE1006
    [ThreadStatic]
    private static ThreadSlots? t_slots;
#pragma warning restore IDE1006

    /// <summary>A new owner number, never handed out before in this process.</summary>
    public static long NewOwner() => Interlocked.Increment(ref s_lastOwner);

    /// <summary>The index of the series <paramref name="owner"/> remembered on this thread for <paramref name="tags"/> (the caller's, any order), or -1.</summary>
    /// <remarks>Not inlined: inlined into the listener's callback with the record, its loops
    /// kept their sums and indexes on the stack for want of registers.</remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Find(long owner, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        ThreadSlots? slots = t_slots;
        if (slots is null || tags.Length > MaxTags)
        {
            return -1;
        }

        if (slots.Misses >= Patience)
        {
            // Resting: all but one lookup in Resting go straight to the full lookup.
            if (++slots.Misses < Patience + Resting)
            {
                return -1;
            }

            slots.Misses = Patience;
        }

        uint address = AddressHash(owner, tags);
        int numberPlusOne = slots.ByAddress[(int)(address >> AddressShift)];
        if (numberPlusOne != 0)
        {
            ref Entry entry = ref slots.Entries[numberPlusOne - 1];
            if (entry.Owner == owner && entry.AddressHash == address && entry.Count == tags.Length && SameReferences(ref entry, tags))
            {
                if (slots.Misses != 0)
                {
                    slots.Misses = 0;
                }

                return entry.Index;
            }
        }

        int index = FindByValue(slots, owner, address, tags);
        slots.Misses = index >= 0 ? 0 : Math.Min(slots.Misses + 1, Patience);
        return index;
    }

    /// <summary>Remembers on this thread that <paramref name="tags"/> name the series at <paramref name="index"/> of <paramref name="owner"/>; ignored past <see cref="MaxTags"/> tags, and while the thread's lookups keep missing (but for one in <see cref="Resting"/>).</summary>
    public static void Remember(long owner, ReadOnlySpan<KeyValuePair<string, object?>> tags, int index)
    {
        if (tags.Length > MaxTags)
        {
            return;
        }

        ThreadSlots slots = t_slots ??= new ThreadSlots();
        if (slots.Misses > Patience)
        {
            // Resting (see Find): only the lookup that looked remembers.
            return;
        }

        uint hash = ValueHash(owner, tags);
        int first = (int)(hash >> SetShift) * Ways;

        // The set's entry written longer ago makes room.
        int number = slots.Entries[first].Stamp <= slots.Entries[first + 1].Stamp ? first : first + 1;
        Write(slots, number, owner, hash, AddressHash(owner, tags), tags, index);
    }

    /// <summary>Whether two values the caller passed are equal as tag values of one type: a reference hit, ordinal strings, or one boxed type's own equality.</summary>
    /// <remarks>Stricter than <see cref="TagValues.EqualsNormalized"/> (<c>200</c> and <c>200L</c> are not the same here), never looser: two values equal here normalize alike.</remarks>
    internal static bool SameValue(object? remembered, object? given) =>
        ReferenceEquals(remembered, given)
        || (remembered is string text ? given is string other && string.Equals(text, other, StringComparison.Ordinal)
            : remembered is not null && given is not null && remembered.GetType() == given.GetType() && remembered.Equals(given));

    /// <summary>The hash that picks an entry's set: order-independent, from values only, alike for values <see cref="SameValue"/> finds equal.</summary>
    /// <remarks>
    /// Strings and <see cref="int"/> boxes (status codes) are sampled in one loop with no call in
    /// it, not even on a path never taken: a call there made the JIT keep the loop's index on the
    /// stack. Other values are sampled by a second pass, out of line, only where there are some.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static uint ValueHash(long owner, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        uint sum = (uint)tags.Length;
        bool others = false;
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            object? value = tag.Value;
            uint sample;
            if (value is string text)
            {
                // A string's length and two of its characters, where route templates and status
                // texts differ; the empty string's are its terminator.
                int length = text.Length;
                sample = length == 0 ? 0 : (uint)length ^ ((uint)text[length >> 1] << 8) ^ ((uint)text[length - 1] << 20);
            }
            else if (value is not null && value.GetType() == typeof(int))
            {
                sample = (uint)(int)value;
            }
            else
            {
                others = true;
                continue;
            }

            sum += Mix(sample);
        }

        if (others)
        {
            sum += SampleOthers(tags);
        }

        // Mixes the owner in, and the sum into the high bits the set is taken from.
        return (uint)((((ulong)owner << 32) ^ sum) * 0x9E3779B97F4A7C15UL >> 32);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint Mix(uint sample) => uint.RotateLeft(sample * 0x9E3779B1u, 15);

    // The values ValueHash's loop leaves: a boxed number's own value (values of one type that
    // Equals finds equal sample alike: 0.0 and -0.0, every NaN), any other value alike.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static uint SampleOthers(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        uint sum = 0;
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            uint sample;
            switch (tag.Value)
            {
                case string:
                case int:
                    continue;
                case long number:
                    sample = (uint)number ^ (uint)(number >> 32);
                    break;
                case double real:
                    ulong bits = real == 0 ? 0 : double.IsNaN(real) ? 1 : BitConverter.DoubleToUInt64Bits(real);
                    sample = (uint)bits ^ (uint)(bits >> 32);
                    break;
                case float single:
                    sample = single == 0 ? 0 : float.IsNaN(single) ? 1 : BitConverter.SingleToUInt32Bits(single);
                    break;
                case bool flag:
                    sample = flag ? 1u : 2u;
                    break;
                default:
                    sample = 3u;
                    break;
            }

            sum += Mix(sample);
        }

        return sum;
    }

    /// <summary>
    /// The sum of the addresses of <paramref name="tags"/>' keys and values, each rotated by its
    /// position and mixed: a load, a rotate and an add a word. A hint, not an identity: see
    /// remarks. It depends on the order, as the comparison it leads to does, so that two orders
    /// of the same objects are two entries.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static uint AddressHash(long owner, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        nuint sum = (nuint)owner;
        ReadOnlySpan<nuint> words = Words(tags);
        for (int i = 0; i < words.Length; i++)
        {
            sum += nuint.RotateLeft(words[i], i);
        }

        return (uint)((ulong)sum * 0x9E3779B97F4A7C15UL >> 32);
    }

    // The tags' memory as words: each key's and value's reference, as a number, in the order a
    // KeyValuePair lays them out. Read, never written: no reference is made from a number. Only
    // hashed: a collection that moves an object mid-hash makes a hash that misses, never a hit
    // (the hit is decided by SameReferences, on references).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ReadOnlySpan<nuint> Words(ReadOnlySpan<KeyValuePair<string, object?>> tags) =>
        MemoryMarshal.CreateReadOnlySpan(
            ref Unsafe.As<KeyValuePair<string, object?>, nuint>(ref MemoryMarshal.GetReference(tags)),
            tags.Length * WordsPerTag);

    // The entries of the value hash's set, by reference and else by value. An entry found by
    // reference is indexed under the caller's addresses for its next lookup; one whose objects
    // are the caller's in another order stays, and the caller's order takes the set's other
    // entry, so that a caller that alternates orders finds both by address; one whose values
    // equal the caller's takes the caller's objects.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int FindByValue(ThreadSlots slots, long owner, uint address, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        uint hash = ValueHash(owner, tags);
        int first = (int)(hash >> SetShift) * Ways;
        for (int number = first; number < first + Ways; number++)
        {
            ref Entry entry = ref slots.Entries[number];
            if (entry.Owner != owner || entry.Hash != hash || entry.Count != tags.Length)
            {
                continue;
            }

            if (SameReferences(ref entry, tags))
            {
                entry.AddressHash = address;
                slots.ByAddress[(int)(address >> AddressShift)] = (byte)(number + 1);
                return entry.Index;
            }

            switch (MatchByValue(ref entry, tags))
            {
                case Match.SameObjectsInAnotherOrder:
                    Write(slots, number == first ? first + 1 : first, owner, hash, address, tags, entry.Index);
                    return entry.Index;
                case Match.EqualValues:
                    Write(slots, number, owner, hash, address, tags, entry.Index);
                    return entry.Index;
            }
        }

        return -1;
    }

    // Writes only as many references as the tag sets have: every reference written into this
    // long-lived object goes through the GC's write barrier.
    private static void Write(ThreadSlots slots, int number, long owner, uint hash, uint address, ReadOnlySpan<KeyValuePair<string, object?>> tags, int index)
    {
        ref Entry entry = ref slots.Entries[number];
        Span<KeyValuePair<string, object?>> remembered = entry.Tags;
        tags.CopyTo(remembered);
        if (entry.Count > tags.Length)
        {
            // Drops the references the entry's previous tag set left past this one's.
            remembered[tags.Length..entry.Count].Clear();
        }

        entry.Owner = owner;
        entry.Hash = hash;
        entry.AddressHash = address;
        entry.Count = tags.Length;
        entry.Index = index;
        entry.Stamp = ++slots.Stamp;
        slots.ByAddress[(int)(address >> AddressShift)] = (byte)(number + 1);
    }

    // By reference, position by position: the caller who passes the same objects in the same order.
    // Compared as references, not as raw words or vector lanes: Find has loops without calls, so the
    // JIT makes it fully interruptible, and a garbage collection may stop it between any two loads.
    // A register the JIT knows to hold a reference is updated when the collection moves its object;
    // a word read as a number is not, and a stale address read before a compaction could equal
    // another object's address after it, a false hit that would record into another series (the
    // vector compare that was here could do that, between its two loads).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool SameReferences(ref Entry entry, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        // Two references walked to an end, not an index: fewer instructions a tag (perf/results, "Recent tag sets compared by reference").
        ref KeyValuePair<string, object?> remembered = ref MemoryMarshal.GetReference(entry.Tags[..tags.Length]);
        ref KeyValuePair<string, object?> given = ref MemoryMarshal.GetReference(tags);
        ref KeyValuePair<string, object?> end = ref Unsafe.Add(ref given, tags.Length);
        while (Unsafe.IsAddressLessThan(ref given, ref end))
        {
            if (!ReferenceEquals(remembered.Key, given.Key) || !ReferenceEquals(remembered.Value, given.Value))
            {
                return false;
            }

            remembered = ref Unsafe.Add(ref remembered, 1);
            given = ref Unsafe.Add(ref given, 1);
        }

        return true;
    }

    // Any order, by value: pairs every caller tag with a distinct remembered tag of an equal key
    // and value, and says whether every pair was the very same objects.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static Match MatchByValue(ref Entry entry, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        ReadOnlySpan<KeyValuePair<string, object?>> remembered = entry.Tags[..tags.Length];
        uint paired = 0;
        bool sameObjects = true;
        for (int i = 0; i < tags.Length; i++)
        {
            int j = TagSetComparer.IndexOfKey(remembered, tags[i].Key, i);
            if (j < 0 || (paired & (1u << j)) != 0 || !SameValue(remembered[j].Value, tags[i].Value))
            {
                return Match.None;
            }

            paired |= 1u << j;
            sameObjects &= ReferenceEquals(remembered[j].Key, tags[i].Key) && ReferenceEquals(remembered[j].Value, tags[i].Value);
        }

        return sameObjects ? Match.SameObjectsInAnotherOrder : Match.EqualValues;
    }

    /// <summary>A thread's entries and its address index, in one object.</summary>
    private sealed class ThreadSlots
    {
        public EntryArray Entries;
        public AddressIndex ByAddress;

        // Entries written so far: an entry's stamp says how recently it was written.
        public uint Stamp;

        // Lookups in a row that found nothing (see Patience).
        public int Misses;
    }

    /// <summary>One remembered tag set: its owner (0: none yet), value and address hashes, tag count, series index, when it was written, and the caller's tags.</summary>
    private struct Entry
    {
        public long Owner;
        public uint Hash;
        public uint AddressHash;
        public int Count;
        public int Index;
        public uint Stamp;
        public TagArray Tags;
    }

    /// <summary>How a caller's tags match an entry's by value.</summary>
    private enum Match
    {
        None,
        SameObjectsInAnotherOrder,
        EqualValues,
    }

    /// <summary>Room for <see cref="MaxTags"/> tags, in the entry itself.</summary>
    [InlineArray(MaxTags)]
    private struct TagArray
    {
        private KeyValuePair<string, object?> _first;
    }

    /// <summary>A thread's entries, in its <see cref="ThreadSlots"/>.</summary>
    [InlineArray(Entries)]
    private struct EntryArray
    {
        private Entry _first;
    }

    /// <summary>Address hash to entry number plus one.</summary>
    [InlineArray(AddressSlots)]
    private struct AddressIndex
    {
        private byte _first;
    }
}
