namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Encoding;

/// <summary>A clock the test sets, so that every collection's time is known.</summary>
internal sealed class ManualTime(DateTimeOffset now) : TimeProvider
{
    public DateTimeOffset Now { get; set; } = now;

    public override DateTimeOffset GetUtcNow() => Now;

    /// <summary>Nanoseconds since the Unix epoch of <paramref name="time"/>.</summary>
    public static ulong UnixNano(DateTimeOffset time) => (ulong)(time.UtcTicks - DateTime.UnixEpoch.Ticks) * 100;
}
