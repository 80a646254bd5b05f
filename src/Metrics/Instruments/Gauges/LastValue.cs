using System.Runtime.CompilerServices;

namespace ScalableMetrics.Instruments.Gauges;

/// <summary>
/// A gauge series' one cell: the last value set, or none before the first set. Written once for
/// <see cref="GaugeSeries"/> and <see cref="DoubleGaugeSeries"/>: the value is kept as its 8 bytes,
/// so that a set is one plain store, never torn, whichever the type.
/// </summary>
/// <typeparam name="TValue"><see cref="long"/> or <see cref="double"/>: 8 bytes.</typeparam>
internal struct LastValue<TValue>
    where TValue : struct
{
    private long _bits;

    // 0 until the first set, then 1: a series bound but never set is not exported. Written after
    // _bits and read before it, so a reader that sees it set reads a value that was set.
    private int _isSet;

    /// <summary>Sets the value, replacing the last one.</summary>
    /// <param name="value">The value.</param>
    public void Set(TValue value)
    {
        Volatile.Write(ref _bits, Unsafe.BitCast<TValue, long>(value));
        if (_isSet == 0)
        {
            Volatile.Write(ref _isSet, 1);
        }
    }

    /// <summary>The last value set, or <see langword="null"/> before the first <see cref="Set"/>.</summary>
    /// <returns>The value; with concurrent sets, one of theirs.</returns>
    public TValue? Read() => Volatile.Read(ref _isSet) != 0 ? Unsafe.BitCast<long, TValue>(Volatile.Read(ref _bits)) : null;
}
