namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// One <see cref="long"/> per thread, adjacent in an array, each written only by its own thread
/// with a plain increment published by a volatile write: no atomics (single writer), but the
/// slots share cache lines, so the threads still contend (false sharing, seed 000).
/// </summary>
internal sealed class ArrayUnpadded : CountingImplementation
{
    private long[] _slots = [];

    public override string Id => "array-unpadded";

    public override string Description => "a long per thread, adjacent (false sharing), single-writer volatile store";

    public override void Prepare(int threads) => _slots = new long[threads];

    public override long Run(int threadIndex, StopSignal stop) => HotLoop.Run(new Adder(_slots, threadIndex), stop);

    public override long ReadTotal()
    {
        long total = 0;
        for (int i = 0; i < _slots.Length; i++)
        {
            total += Volatile.Read(ref _slots[i]);
        }

        return total;
    }

    internal readonly struct Adder(long[] slots, int threadIndex) : IAdder
    {
        public void Add()
        {
            ref long slot = ref slots[threadIndex];
            Volatile.Write(ref slot, slot + 1);
        }
    }
}
