namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// One shared <see cref="long"/> that every thread increments with <see cref="Interlocked.Increment(ref long)"/>:
/// the unpartitioned baseline, whose cache line moves between cores on every add.
/// </summary>
internal sealed class SharedInterlocked : CountingImplementation
{
    private SharedTotal _total = new();

    public override string Id => "shared-interlocked";

    public override string Description => "one shared long, Interlocked.Increment";

    public override void Prepare(int threads) => _total = new SharedTotal();

    public override long Run(int threadIndex, StopSignal stop) => HotLoop.Run(new Adder(_total), stop);

    public override long ReadTotal() => Volatile.Read(ref _total.Value);

    /// <summary>The shared counter, in an object of its own.</summary>
    internal sealed class SharedTotal
    {
        public long Value;
    }

    internal readonly struct Adder(SharedTotal total) : IAdder
    {
        public void Add() => Interlocked.Increment(ref total.Value);
    }
}
