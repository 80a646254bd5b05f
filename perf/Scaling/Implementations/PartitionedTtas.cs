using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using ScalableMetrics.Platform;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// One padded cell per processor, picked by <see cref="ProcessorId.CurrentPartition"/> and
/// guarded by a TTAS spin lock: seed 001's fastest partitioned variant. The lock is needed
/// because a cached processor id can be stale, so two threads can meet in one cell.
/// </summary>
internal sealed class PartitionedTtas : CountingImplementation
{
    private TtasCell[] _cells = [];

    public override string Id => "partitioned-ttas";

    public override string Description => "128-byte cell per processor (cached id), TTAS spin lock";

    public override void Prepare(int threads) => _cells = new TtasCell[ProcessorId.PartitionCount];

    public override long Run(int threadIndex, StopSignal stop) => HotLoop.Run(new Adder(_cells), stop);

    public override long ReadTotal()
    {
        long total = 0;
        for (int i = 0; i < _cells.Length; i++)
        {
            total += Volatile.Read(ref _cells[i].Value);
        }

        return total;
    }

    internal readonly struct Adder(TtasCell[] cells) : IAdder
    {
        // CurrentPartition() < PartitionCount == cells.Length, as in the core's PartitionedSeries.
        public void Add() => Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(cells), ProcessorId.CurrentPartition()).Increment();
    }
}
