namespace ScalableMetrics;

/// <summary>
/// One series of a <see cref="Gauge"/>, bound to a fixed tag set: the last <see cref="long"/>
/// value set. One cell, not partitioned: a gauge is set, not added to, so there is nothing to
/// sum, and the last writer wins whatever processor it runs on.
/// </summary>
/// <remarks>Thread-safe: a set is one plain 8-byte store, never torn. Get one from <see cref="Gauge.Bind"/>, once, and keep it.</remarks>
public sealed class GaugeSeries : Series
{
    private long _value;

    // 0 until the first set, then 1: a series bound but never set is not exported. Written after
    // _value and read before it, so a reader that sees it set reads a value that was set.
    private int _isSet;

    internal GaugeSeries(TagSet tags)
        : base(tags)
    {
    }

    /// <summary>Sets the series' value, replacing the last one.</summary>
    /// <param name="value">The value, any <see cref="long"/>.</param>
    public void Set(long value)
    {
        Volatile.Write(ref _value, value);
        if (_isSet == 0)
        {
            Volatile.Write(ref _isSet, 1);
        }
    }

    /// <summary>The last value set, or <see langword="null"/> before the first <see cref="Set"/>.</summary>
    /// <returns>The value; with concurrent sets, one of theirs.</returns>
    public long? Read() => Volatile.Read(ref _isSet) != 0 ? Volatile.Read(ref _value) : null;
}
