using ScalableMetrics.Instruments.Gauges;

namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="Gauge"/>, bound to a fixed tag set: the last <see cref="long"/>
/// value set. One cell, not partitioned: a gauge is set, not added to, so there is nothing to
/// sum, and the last writer wins whatever processor it runs on.
/// </summary>
/// <remarks>Thread-safe: a set is one plain 8-byte store, never torn. Get one from <see cref="SeriesInstrument{TSeries}.Bind">Gauge.Bind</see>, once, and keep it.</remarks>
public sealed class GaugeSeries : Series, ILastValueSeries<long>
{
    private LastValue<long> _value;

    internal GaugeSeries(TagSet tags)
        : base(tags)
    {
    }

    /// <summary>Sets the series' value, replacing the last one.</summary>
    /// <param name="value">The value, any <see cref="long"/>.</param>
    public void Set(long value) => _value.Set(value);

    /// <summary>The last value set, or <see langword="null"/> before the first <see cref="Set"/>.</summary>
    /// <returns>The value; with concurrent sets, one of theirs.</returns>
    public long? Read() => _value.Read();
}
