namespace ScalableMetrics.Scaling;

/// <summary>
/// A way of counting that the harness measures: T threads each add 1 to one logical counter.
/// </summary>
/// <remarks>
/// The harness calls <see cref="Prepare"/> once per point, then <see cref="Run"/> on every worker
/// thread at once, then <see cref="ReadTotal"/> after the workers have ended. Each implementation
/// runs its own loop through <see cref="HotLoop.Run"/> with a struct <see cref="IAdder"/>, so the
/// one virtual call is per point, not per add.
/// </remarks>
internal abstract class CountingImplementation : IDisposable
{
    /// <summary>The id the <c>--impl</c> option selects and the results name.</summary>
    public abstract string Id { get; }

    /// <summary>One line on what it does, for the terminal and the docs.</summary>
    public abstract string Description { get; }

    /// <summary>Whether the total may fall short of the adds made (a mismatch is then reported, not an error).</summary>
    /// <remarks>None of the implementations measured today is lossy; the harness supports one so
    /// that an unsynchronized baseline, like seed 001's "unsafe" version, can be added.</remarks>
    public virtual bool IsLossy => false;

    /// <summary>Starts a fresh counter at 0 for a point with <paramref name="threads"/> workers.</summary>
    public abstract void Prepare(int threads);

    /// <summary>Adds 1 in a loop on worker <paramref name="threadIndex"/> until <paramref name="stop"/> is set.</summary>
    /// <returns>The number of adds this worker made.</returns>
    public abstract long Run(int threadIndex, StopSignal stop);

    /// <summary>Reads the counter's total after every worker has ended, the way its users would.</summary>
    public abstract long ReadTotal();

    /// <inheritdoc/>
    public void Dispose()
    {
        Dispose(true);
        GC.SuppressFinalize(this);
    }

    /// <summary>Releases what the last <see cref="Prepare"/> created.</summary>
    protected virtual void Dispose(bool disposing)
    {
    }
}
