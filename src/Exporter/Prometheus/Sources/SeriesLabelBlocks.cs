using System.Runtime.CompilerServices;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// One instrument's label blocks by the position of their series in its readings: a registry
/// keeps its series in creation order, so from one scrape to the next a series is read at the
/// same position (until a removal moves the series after it up), and its block is found by one reference compare of its
/// key (its tag set, or the series itself where the scrape reads series rather than readings),
/// rather than by a hash lookup per series.
/// </summary>
/// <remarks>
/// <para>Each block's text is also kept here, the instrument's blocks one after the other in
/// series order (<see cref="Text"/>): a scrape that writes the text formats reads it in one
/// sequential sweep, where each block's own array is two dependent loads from a scattered object.
/// Keyed by the series, the compare reads only this array and the table's, never the series.</para>
/// <para>A key not at its remembered position (a series first read, or an order that changed) is
/// looked up the slow way and remembered there; its text is appended, and the kept text is
/// compacted when more than half of it is stale. Not thread-safe: a scrape at a time.</para>
/// </remarks>
internal sealed class SeriesLabelBlocks
{
    private object?[] _keys = [];
    private LabelBlock?[] _blocks = [];
    private int[] _textStarts = [];
    private int[] _textLengths = [];
    private byte[] _text = [];
    private int _textLength;
    private int _liveTextLength;

    // Positions below this may hold a block (KeepFirst).
    private int _remembered;

    /// <summary>The block of the series read at <paramref name="position"/> with <paramref name="tags"/>, keyed by the tag set; <paramref name="find"/> where it is not remembered there.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public LabelBlock Get(int position, TagSet tags, Func<TagSet, LabelBlock> find) =>
        (uint)position < (uint)_keys.Length && ReferenceEquals(_keys[position], tags)
            ? _blocks[position]!
            : Remember(position, tags, find(tags));

    /// <summary>
    /// The block of series <paramref name="index"/> of <paramref name="snapshot"/>, remembered at
    /// that position under the series' key (<see cref="InstrumentSnapshot.KeyAt"/>);
    /// <paramref name="find"/> of its tags where it is not: the tags are read only then.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public LabelBlock Get(InstrumentSnapshot snapshot, int index, Func<TagSet, LabelBlock> find)
    {
        object key = snapshot.KeyAt(index);
        return (uint)index < (uint)_keys.Length && ReferenceEquals(_keys[index], key)
            ? _blocks[index]!
            : Remember(index, key, find(snapshot.TagsAt(index)));
    }

    /// <summary>The text of the block at <paramref name="position"/> (<see cref="LabelBlock.Utf8"/>), once a <c>Get</c> returned it there.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public ReadOnlySpan<byte> Text(int position) => _text.AsSpan(_textStarts[position], _textLengths[position]);

    /// <summary>
    /// Forgets the blocks at positions <paramref name="count"/> and up: an instrument that reads
    /// fewer series than before had some removed, and a key kept past them would keep a removed
    /// series (and its memory) alive.
    /// </summary>
    public void KeepFirst(int count)
    {
        if (count >= _remembered)
        {
            return;
        }

        for (int i = count; i < _remembered; i++)
        {
            if (_blocks[i] is not null)
            {
                _liveTextLength -= _textLengths[i];
            }
        }

        Array.Clear(_keys, count, _remembered - count);
        Array.Clear(_blocks, count, _remembered - count);
        _remembered = count;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private LabelBlock Remember(int position, object key, LabelBlock block)
    {
        if (position >= _keys.Length)
        {
            int length = Math.Max(position + 1, 2 * _keys.Length);
            Array.Resize(ref _keys, length);
            Array.Resize(ref _blocks, length);
            Array.Resize(ref _textStarts, length);
            Array.Resize(ref _textLengths, length);
        }
        else if (_blocks[position] is not null)
        {
            _liveTextLength -= _textLengths[position];
        }

        // Out of the compaction: its text is appended after it.
        _remembered = Math.Max(_remembered, position + 1);
        _keys[position] = key;
        _blocks[position] = null;
        if (_textLength - _liveTextLength > _liveTextLength && _textLength > 4096)
        {
            Compact();
        }

        _blocks[position] = block;
        ReadOnlySpan<byte> text = block.Utf8;

        if (_text.Length - _textLength < text.Length)
        {
            Array.Resize(ref _text, Math.Max(_textLength + text.Length, 2 * _text.Length));
        }

        text.CopyTo(_text.AsSpan(_textLength));
        _textStarts[position] = _textLength;
        _textLengths[position] = text.Length;
        _textLength += text.Length;
        _liveTextLength += text.Length;
        return block;
    }

    // Rewrites the live text in position order, dropping what replaced blocks left behind.
    private void Compact()
    {
        var text = new byte[Math.Max(_liveTextLength * 2, 1024)];
        int length = 0;
        for (int i = 0; i < _blocks.Length; i++)
        {
            if (_blocks[i] is { } block)
            {
                block.Utf8.CopyTo(text.AsSpan(length));
                _textStarts[i] = length;
                length += block.Utf8.Length;
            }
        }

        _text = text;
        _textLength = length;
    }
}
