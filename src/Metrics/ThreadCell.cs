namespace ScalableMetrics;

/// <summary>
/// A series' padded cell owned by one thread (<see cref="PartitionStrategy.PerThread"/>): only
/// <see cref="Owner"/> writes it, with plain stores; collection reads it.
/// </summary>
internal sealed class ThreadCell
{
    public ThreadCell(Thread owner, long lease)
    {
        Owner = owner;
        Lease = lease;
    }

    /// <summary>The only thread that writes <see cref="Data"/>; once it has ended, the cell is retired.</summary>
    public Thread Owner { get; }

    /// <summary>The owner's <see cref="ThreadLease"/>: a writer whose lease differs is not the owner.</summary>
    public long Lease { get; }

    /// <summary>The cell's data, padded so that cells of different threads never share a cache line.</summary>
    public PaddedCell Data;
}
