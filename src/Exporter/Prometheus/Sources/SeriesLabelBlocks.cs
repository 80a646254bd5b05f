using System.Runtime.CompilerServices;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// One instrument's label blocks by the position of their series in its readings: a registry
/// keeps its series in creation order and never drops one, so from one scrape to the next a
/// series is read at the same position, and its block is found by one reference compare of its
/// tag set, rather than by a hash lookup per series.
/// </summary>
/// <remarks>A tag set not at its remembered position (a series first read, or an order that
/// changed) is looked up the slow way and remembered there. Not thread-safe: a scrape at a time.</remarks>
internal sealed class SeriesLabelBlocks
{
    private TagSet?[] _tags = [];
    private LabelBlock?[] _blocks = [];

    /// <summary>The block of the series read at <paramref name="position"/> with <paramref name="tags"/>; <paramref name="find"/> where it is not remembered there.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public LabelBlock Get(int position, TagSet tags, Func<TagSet, LabelBlock> find) =>
        (uint)position < (uint)_tags.Length && ReferenceEquals(_tags[position], tags)
            ? _blocks[position]!
            : Remember(position, tags, find(tags));

    [MethodImpl(MethodImplOptions.NoInlining)]
    private LabelBlock Remember(int position, TagSet tags, LabelBlock block)
    {
        if (position >= _tags.Length)
        {
            int length = Math.Max(position + 1, 2 * _tags.Length);
            Array.Resize(ref _tags, length);
            Array.Resize(ref _blocks, length);
        }

        _tags[position] = tags;
        _blocks[position] = block;
        return block;
    }
}
