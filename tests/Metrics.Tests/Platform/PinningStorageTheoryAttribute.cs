namespace ScalableMetrics.Tests.Platform;

/// <summary>A <see cref="StorageTheoryAttribute"/> whose test moves threads between processors: skipped, with the reason, where <see cref="ThreadPinning"/> cannot.</summary>
public sealed class PinningStorageTheoryAttribute : StorageTheoryAttribute
{
    public PinningStorageTheoryAttribute()
    {
        Skip = ThreadPinning.UnavailableReason;
    }
}
