using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// What a writer keeps per series between scrapes, in its own format (a text format's histogram
/// lines, protobuf's encoded labels), found by the series' <see cref="LabelBlock"/>: the block
/// stays immutable and shared by every format, and each writer keeps its own.
/// </summary>
/// <remarks>
/// <para>A scrape asks for its series in the order the one before asked (the sources write their
/// series in a kept order), so each lookup first compares the entry the previous scrape found at
/// the same step, one reference compare, and hashes only where that misses (a series new, gone
/// or moved); the entry found is remembered at that step for the next scrape. Entries no scrape
/// asked for since the last <see cref="BeginScrape"/> are let go once they outnumber the ones
/// asked for, so a writer keeps what its scrapes write, not every series it ever wrote.</para>
/// <para>Two blocks of equal text share an entry, as what a format keeps depends on the text only.
/// Not thread-safe: its writer writes one scrape at a time.</para>
/// </remarks>
/// <typeparam name="TValue">What is kept per series.</typeparam>
internal sealed class LabelBlockCache<TValue>
    where TValue : class
{
    // Below this many entries, stale ones are not worth a sweep.
    private const int MinEntriesToSweep = 64;

    private readonly Dictionary<LabelBlock, Entry> _entries = [];

    // The entry found at each step of the last scrape, overwritten step by step by this one's.
    private Entry?[] _steps = [];
    private int _step;
    private int _scrape;

    /// <summary>How many series are kept.</summary>
    public int Count => _entries.Count;

    /// <summary>
    /// The value kept for <paramref name="labels"/>, null where none is: assign it through the
    /// reference returned to keep one. Counts as the next step of the scrape.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public ref TValue? Find(LabelBlock labels)
    {
        int step = _step;
        Entry?[] steps = _steps;
        if ((uint)step < (uint)steps.Length && steps[step] is { } entry && ReferenceEquals(entry.Labels, labels))
        {
            entry.Scrape = _scrape;
            _step = step + 1;
            return ref entry.Value;
        }

        return ref FindSlow(labels);
    }

    /// <summary>The value kept for <paramref name="labels"/>, or null, without counting as a step: for tests.</summary>
    public TValue? Peek(LabelBlock labels) => _entries.TryGetValue(labels, out Entry? entry) ? entry.Value : null;

    /// <summary>Starts the next scrape: its lookups are compared with this one's, step by step; entries this one did not ask for may be let go.</summary>
    public void BeginScrape()
    {
        if (_entries.Count > MinEntriesToSweep && _entries.Count > 2 * _step)
        {
            Sweep();
        }

        _scrape++;
        _step = 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ref TValue? FindSlow(LabelBlock labels)
    {
        ref Entry? slot = ref CollectionsMarshal.GetValueRefOrAddDefault(_entries, labels, out _);
        Entry entry = slot ??= new Entry(labels);
        entry.Scrape = _scrape;
        if (_step >= _steps.Length)
        {
            Array.Resize(ref _steps, Math.Max(16, 2 * _steps.Length));
        }

        _steps[_step++] = entry;
        return ref entry.Value;
    }

    // Lets go of the entries the scrape ending did not ask for, and of the steps past its last,
    // which would otherwise keep them alive.
    private void Sweep()
    {
        foreach (KeyValuePair<LabelBlock, Entry> kept in _entries)
        {
            if (kept.Value.Scrape != _scrape)
            {
                _entries.Remove(kept.Key);
            }
        }

        Array.Clear(_steps, _step, _steps.Length - _step);
    }

    /// <summary>One series' kept value, and the last scrape that asked for it.</summary>
    private sealed class Entry(LabelBlock labels)
    {
        /// <summary>The block the entry was made for (one of equal text).</summary>
        public readonly LabelBlock Labels = labels;

        /// <summary>The kept value, or null.</summary>
        public TValue? Value;

        /// <summary>The last scrape that asked for it.</summary>
        public int Scrape;
    }
}
