using System.Runtime.CompilerServices;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp;

/// <summary>
/// What an OTLP export keeps of one instrument between exports: the state of each of its series,
/// found by the series' position in the instrument's readings (a registry keeps its series in
/// creation order and never drops one, so one reference compare finds it), and by its tags
/// where the position does not match (a new series; an observable instrument, whose callback
/// reports in any order).
/// </summary>
/// <remarks>Not thread-safe: touched by one export at a time.</remarks>
internal sealed class OtlpInstrumentState
{
    private readonly Dictionary<TagSet, OtlpSeriesState> _byTags = [];
    private OtlpSeriesState?[] _byPosition = [];

    /// <summary>The export that last read the instrument, whose series are committed when it is accepted.</summary>
    public long Generation { get; set; }

    /// <summary>The state of the series read at <paramref name="position"/> with <paramref name="tags"/>, created where it has none.</summary>
    /// <param name="position">The reading's position in its instrument's readings.</param>
    /// <param name="tags">The reading's tags.</param>
    /// <param name="attributesField">The field number of attributes in the kind's data point.</param>
    /// <param name="scratch">A buffer to encode a new series' attributes in.</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public OtlpSeriesState Series(int position, TagSet tags, int attributesField, OtlpBuffer scratch) =>
        (uint)position < (uint)_byPosition.Length && _byPosition[position] is { } state && ReferenceEquals(state.Tags, tags)
            ? state
            : Find(position, tags, attributesField, scratch);

    /// <summary>
    /// Moves the baselines of the series the export of <paramref name="generation"/> read to that
    /// reading; a series it did not read (an observable instrument's callback no longer reports it)
    /// keeps nothing, so that if it comes back its whole value is its first delta.
    /// </summary>
    public void Commit(long generation)
    {
        List<TagSet>? gone = null;
        foreach (OtlpSeriesState state in _byTags.Values)
        {
            if (state.PendingGeneration == generation)
            {
                state.Committed = state.Pending;
                state.HasCommitted = true;
            }
            else
            {
                state.HasCommitted = false;
                (gone ??= []).Add(state.Tags);
            }
        }

        if (gone is not null)
        {
            foreach (TagSet tags in gone)
            {
                _byTags.Remove(tags);
            }

            Array.Clear(_byPosition);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private OtlpSeriesState Find(int position, TagSet tags, int attributesField, OtlpBuffer scratch)
    {
        if (!_byTags.TryGetValue(tags, out OtlpSeriesState? state))
        {
            state = new OtlpSeriesState(tags, OtlpAttributes.Encode(scratch, attributesField, tags));
            _byTags.Add(tags, state);
        }

        if (position >= _byPosition.Length)
        {
            Array.Resize(ref _byPosition, Math.Max(position + 1, 2 * _byPosition.Length));
        }

        _byPosition[position] = state;
        return state;
    }
}
