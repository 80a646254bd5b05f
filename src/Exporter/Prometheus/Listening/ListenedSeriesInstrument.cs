using System.Runtime.CompilerServices;
using ScalableMetrics.SeriesTables;
using ScalableMetrics.Tags;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// A listened instrument that records into the series of a registry instrument: finds the series
/// for a measurement's tags, the untagged one bound once, and drops a measurement whose tags the
/// registry refuses.
/// </summary>
/// <remarks>
/// <para>A measurement's tags are looked up first among the calling thread's recent tag sets,
/// under an owner number of this instrument's (<see cref="RecentTagSets"/>): the measured tags as
/// given, before the source's tags are added, so that a hit neither merges tags nor hashes one,
/// and costs no call through the registry instrument. Only a miss merges, looks up by value in
/// the series table and remembers the measured tags.</para>
/// <para>The refusal is caught around the miss only, never around the add or record: the JIT
/// does not inline a call made inside a <c>try</c> region, and a listened histogram's record
/// there ran at half its speed or less (perf/results/README.md, issue 11).</para>
/// </remarks>
/// <typeparam name="TSeries">The registry instrument's bound series.</typeparam>
internal abstract class ListenedSeriesInstrument<TSeries>(string name, SeriesTable<TSeries> table, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops)
    : ListenedInstrument(name, sourceTags, drops)
    where TSeries : Series
{
    // Not the table's own: the measured tags name a series only with the source's tags added.
    private readonly long _owner = RecentTagSets.NewOwner();
    private TSeries? _untagged;

    /// <summary>The series of <paramref name="tags"/> and <see cref="ListenedInstrument.SourceTags"/>, or null (the measurement dropped and reported) where the registry refuses the tags.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    protected TSeries? SeriesFor(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (tags.IsEmpty)
        {
            return _untagged ?? FindSeries(tags);
        }

        // Read before the lookup, so that its loads overlap the call.
        TSeries[] byIndex = table.ByIndex;
        int index = RecentTagSets.Find(_owner, tags);
        return index >= 0 ? byIndex[index] : FindSeries(tags);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private TSeries? FindSeries(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        try
        {
            return tags.IsEmpty ? (_untagged ??= table.GetOrAdd(SourceTags)) : table.GetOrAddAndRemember(WithSourceTags(tags), _owner, tags);
        }
        catch (ArgumentException e)
        {
            Drop("its tags break the registry's rules", e);
            return null;
        }
    }
}
