namespace ScalableMetrics.SeriesTables;

/// <summary>
/// A table's removed series whose value lives in the series object itself (a gauge's): unlinked
/// and waiting for the garbage collector, reclaimed, and the late writes found at their reclaim.
/// </summary>
/// <remarks>
/// <para>A partitioned series keeps its value in the arena, which outlives the series object, so
/// its table reads the slots once the object is collected (<see cref="RetiredSeries"/>). A gauge's
/// value is the series object's own field: it can be read only while the object exists, and it can
/// change only while a thread can reach the object. So a removed gauge series is compared with what
/// its last export read by a finalizer that runs once the series is unreachable
/// (<c>LastValueSeries.LastExport</c>), on the finalizer thread, which reports here.</para>
/// <para>Thread-safe: written by the table under its lock (<see cref="Unlinked"/>) and by the
/// finalizer thread (<see cref="Reclaimed"/>), both with <see cref="Interlocked"/>; read by any.</para>
/// </remarks>
internal sealed class FinalizedRemovals
{
    private int _waiting;
    private long _reclaimed;
    private long _lateWrites;

    /// <summary>The series unlinked and not yet reclaimed.</summary>
    public int Waiting => Volatile.Read(ref _waiting);

    /// <summary>The series reclaimed: collected once nothing could write them.</summary>
    public long Reclaimed => Interlocked.Read(ref _reclaimed);

    /// <summary>The series whose value, at their reclaim, was not the one their last export read: set after it, to another value.</summary>
    public long LateWrites => Interlocked.Read(ref _lateWrites);

    /// <summary>Counts a series unlinked, whose reclaim will come (<see cref="CountReclaim"/>).</summary>
    public void Unlinked() => Interlocked.Increment(ref _waiting);

    /// <summary>Counts a series reclaimed, and <paramref name="late"/>: whether it was set after its last export to another value. On the finalizer thread; never throws.</summary>
    public void CountReclaim(bool late)
    {
        if (late)
        {
            Interlocked.Increment(ref _lateWrites);
        }

        Interlocked.Increment(ref _reclaimed);
        Interlocked.Decrement(ref _waiting);
    }
}
