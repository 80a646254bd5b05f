using System.Runtime.CompilerServices;
using ScalableMetrics.Recording;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// A listened instrument that records into the series of a registry instrument, found by the
/// recorder the registry instrument hands out (<see cref="SeriesRecorder{TSeries}"/>: the recent
/// tag sets, the source's tags added): drops a measurement whose tags the registry refuses.
/// </summary>
/// <typeparam name="TSeries">The registry instrument's bound series.</typeparam>
internal abstract class ListenedSeriesInstrument<TSeries>(string name, SeriesRecorder<TSeries> recorder, ListenerDrops drops)
    : ListenedInstrument(name, drops)
    where TSeries : Series
{
    // Not readonly: the recorder binds its untagged series in place, which a readonly field
    // would lose to a defensive copy on every call.
    private SeriesRecorder<TSeries> _recorder = recorder;

    /// <summary>The series of <paramref name="tags"/> and the source's tags, or null (the measurement dropped and reported) where the registry refuses the tags.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    protected TSeries? SeriesFor(ReadOnlySpan<KeyValuePair<string, object?>> tags) => _recorder.SeriesFor(tags, new DropRefused(this));

    /// <summary>Drops a measurement whose tags the registry refuses, as this instrument's.</summary>
    private readonly struct DropRefused(ListenedSeriesInstrument<TSeries> instrument) : IRefusalSink
    {
        public void Refused(ArgumentException exception) => instrument.Drop("its tags break the registry's rules", exception);
    }
}
