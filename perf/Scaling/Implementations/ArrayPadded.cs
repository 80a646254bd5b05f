namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// <see cref="ArrayUnpadded"/> with each thread's slot padded to 128 bytes: single writer, no
/// atomics and no shared line; the fastest a counter can be, and the ceiling for the others.
/// </summary>
internal sealed class ArrayPadded : CountingImplementation
{
    private PaddedSlot[] _slots = [];

    public override string Id => "array-padded";

    public override string Description => "a 128-byte padded long per thread, single-writer volatile store";

    public override void Prepare(int threads) => _slots = new PaddedSlot[threads];

    public override long Run(int threadIndex, StopSignal stop) => HotLoop.Run(new Adder(_slots, threadIndex), stop);

    public override long ReadTotal()
    {
        long total = 0;
        for (int i = 0; i < _slots.Length; i++)
        {
            total += Volatile.Read(ref _slots[i].Value);
        }

        return total;
    }

    internal readonly struct Adder(PaddedSlot[] slots, int threadIndex) : IAdder
    {
        public void Add()
        {
            ref long slot = ref slots[threadIndex].Value;
            Volatile.Write(ref slot, slot + 1);
        }
    }
}
