namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// The system's clock, which runs an action once just after a collector reads it: what another
/// thread does while a collection is under way, after the collection took its time and before it
/// reads the instruments.
/// </summary>
internal sealed class AfterNowTime : TimeProvider
{
    /// <summary>What to run after the next read of the clock; cleared as it runs.</summary>
    public Action? AfterNow { get; set; }

    public override DateTimeOffset GetUtcNow()
    {
        DateTimeOffset now = DateTimeOffset.UtcNow;
        Action? after = AfterNow;
        AfterNow = null;
        after?.Invoke();
        return now;
    }
}
