namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="DoubleGauge"/>, bound to a fixed tag set: the last <see cref="double"/>
/// value set. One cell, not partitioned: a gauge is set, not added to, so there is nothing to
/// sum, and the last writer wins whatever processor it runs on.
/// </summary>
/// <remarks>Thread-safe: a set is one plain 8-byte store, never torn. Get one from <see cref="DoubleGauge.Bind"/>, once, and keep it.</remarks>
public sealed class DoubleGaugeSeries : Series
{
    private double _value;

    // 0 until the first set, then 1: a series bound but never set is not exported. Written after
    // _value and read before it, so a reader that sees it set reads a value that was set.
    private int _isSet;

    internal DoubleGaugeSeries(TagSet tags)
        : base(tags)
    {
    }

    /// <summary>Sets the series' value, replacing the last one.</summary>
    /// <param name="value">The value, any <see cref="double"/>: NaN and infinities too, exported as Prometheus writes them (<c>NaN</c>, <c>+Inf</c>, <c>-Inf</c>); a gauge holds a snapshot, and the next set replaces it.</param>
    public void Set(double value)
    {
        Volatile.Write(ref _value, value);
        if (_isSet == 0)
        {
            Volatile.Write(ref _isSet, 1);
        }
    }

    /// <summary>The last value set, or <see langword="null"/> before the first <see cref="Set"/>.</summary>
    /// <returns>The value; with concurrent sets, one of theirs.</returns>
    public double? Read() => Volatile.Read(ref _isSet) != 0 ? Volatile.Read(ref _value) : null;
}
