using System.Diagnostics;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// The listener's state for one System.Diagnostics.Metrics instrument (the <c>state</c> the
/// <see cref="System.Diagnostics.Metrics.MeterListener"/> hands back with every measurement): the
/// registry instrument it records into, through the recorder that instrument hands out
/// (<see cref="ListenedSeriesInstrument{TSeries}"/>), which adds the source's tags to every series'.
/// </summary>
/// <remarks>
/// Holds no reference to the source instrument or its meter, so that a meter disposed and
/// dropped by the service can be collected. A measurement the registry would refuse (a negative
/// counter increment, a NaN, a bad tag) is dropped and reported to <see cref="ListenerDrops"/>,
/// never thrown into the instrumented code. Thread-safe: measurements arrive on any thread.
/// </remarks>
internal abstract class ListenedInstrument(string name, ListenerDrops drops)
{
    /// <summary>Why a measurement whose tags (with the source's) the registry refuses is dropped.</summary>
    protected const string TagsRefused = "its tags break the registry's rules";

    private int _dropLogged;

    /// <summary>The instrument's name, as the source instrument and the registry instrument have it.</summary>
    public string Name { get; } = name;

    /// <summary>Records a measurement of an integer type (<c>byte</c>, <c>short</c>, <c>int</c>, <c>long</c>).</summary>
    public virtual void Record(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags) => throw new UnreachableException($"{GetType().Name} takes floating-point values only.");

    /// <summary>Records a measurement of a floating-point type (<c>float</c>, <c>double</c>, <c>decimal</c>).</summary>
    public virtual void Record(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags) => throw new UnreachableException($"{GetType().Name} takes integer values only.");

    /// <summary>The source instrument (or its meter) was disposed: nothing more arrives.</summary>
    public virtual void Complete()
    {
    }

    /// <summary>Drops a measurement the registry would refuse, counting it and logging the instrument's first.</summary>
    protected void Drop(string reason, Exception? exception = null) =>
        drops.Report(Name, reason, exception, Volatile.Read(ref _dropLogged) == 0 && Interlocked.Exchange(ref _dropLogged, 1) == 0);
}
