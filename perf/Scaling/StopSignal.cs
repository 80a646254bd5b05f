namespace ScalableMetrics.Scaling;

/// <summary>
/// The flag that ends a point: set once by the coordinating thread, read by every worker.
/// </summary>
/// <remarks>
/// The flag is the middle element of an array with 128 bytes on either side, so that its cache
/// lines (and their adjacent-line pair) hold nothing a worker writes, such as a counter array
/// allocated just before it; the workers only read it, so each keeps a shared copy until it is set.
/// </remarks>
internal sealed class StopSignal
{
    private const int FlagIndex = 128 / sizeof(int);

    private readonly int[] _padded = new int[(2 * FlagIndex) + 1];

    public bool IsSet => Volatile.Read(ref _padded[FlagIndex]) != 0;

    public void Set() => Volatile.Write(ref _padded[FlagIndex], 1);
}
