using ScalableMetrics.Platform;

namespace ScalableMetrics.Tests;

/// <summary>A fact skipped, with the reason, where the operating system reports no processor id (so no per-processor write path).</summary>
public sealed class ProcessorIdFactAttribute : FactAttribute
{
    public ProcessorIdFactAttribute()
    {
        if (!ProcessorId.IsSupported)
        {
            Skip = "The operating system reports no processor id here: registries use per-thread storage.";
        }
    }
}
