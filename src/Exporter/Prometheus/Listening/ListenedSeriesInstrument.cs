using System.Runtime.CompilerServices;
using ScalableMetrics.Recording;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// A listened instrument that records into the series of a registry instrument, found by the
/// recorder the registry instrument hands out (<see cref="SeriesRecorder{TSeries}"/>: the recent
/// tag sets, the source's tags added): drops a measurement whose tags the registry refuses.
/// </summary>
/// <remarks>The refusal is caught around the recorder's miss only (<see cref="FindSeries"/>),
/// never around the add or record: the JIT does not inline a call made inside a <c>try</c>
/// region (perf/results/README.md, issue 11).</remarks>
/// <typeparam name="TSeries">The registry instrument's bound series.</typeparam>
internal abstract class ListenedSeriesInstrument<TSeries>(string name, SeriesRecorder<TSeries> recorder, ListenerDrops drops)
    : ListenedInstrument(name, drops)
    where TSeries : Series
{
    // Not readonly: the recorder binds its untagged series in place, which a readonly field
    // would lose to a defensive copy.
    private SeriesRecorder<TSeries> _recorder = recorder;

    /// <summary>The series of <paramref name="tags"/> and the source's tags, or null (the measurement dropped and reported) where the registry refuses the tags.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    protected TSeries? SeriesFor(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        // A copy, which the JIT reads off this object field by field: a call on the field itself
        // takes its address, which the JIT kept in a register of its own, with a null check,
        // and spilled the series array around the lookup's call for want of registers.
        SeriesRecorder<TSeries> recorder = _recorder;
        return recorder.Find(tags) ?? FindSeries(tags);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private TSeries? FindSeries(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        try
        {
            return _recorder.GetOrAdd(tags);
        }
        catch (ArgumentException e)
        {
            Drop(TagsRefused, e);
            return null;
        }
    }
}
