using ScalableMetrics.Platform;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// One padded cell per processor, picked by <see cref="ProcessorId.CurrentPartition"/> and
/// guarded by C#'s <c>lock</c> (a <see cref="Monitor"/>): seed 001's blocking partitioned variant.
/// </summary>
internal sealed class PartitionedMonitor : CountingImplementation
{
    private MonitorCell[] _cells = [];

    public override string Id => "partitioned-monitor";

    public override string Description => "padded cell per processor (cached id), C# lock (Monitor)";

    public override void Prepare(int threads)
    {
        _cells = new MonitorCell[ProcessorId.PartitionCount];
        for (int i = 0; i < _cells.Length; i++)
        {
            _cells[i] = new MonitorCell();
        }
    }

    public override long Run(int threadIndex, StopSignal stop) => HotLoop.Run(new Adder(_cells), stop);

    public override long ReadTotal()
    {
        long total = 0;
        foreach (MonitorCell cell in _cells)
        {
            lock (cell)
            {
                total += cell.Value;
            }
        }

        return total;
    }

    internal readonly struct Adder(MonitorCell[] cells) : IAdder
    {
        public void Add() => cells[ProcessorId.CurrentPartition()].Increment();
    }
}
