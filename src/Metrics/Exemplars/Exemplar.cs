using System.Diagnostics;

namespace ScalableMetrics;

/// <summary>
/// One sampled measurement kept beside a counter's total or a histogram bucket's count: its value,
/// when it was taken, and the trace and span it was taken in; what an OpenMetrics 1.0 exemplar
/// carries (<c># {trace_id="…",span_id="…"} value timestamp</c>).
/// </summary>
/// <remarks>
/// <para>Kept only with <see cref="MetricRegistryOptions.ExemplarFilter"/> set to
/// <see cref="ExemplarFilter.TraceBased"/>. An exposition writes <see cref="TraceId"/> and
/// <see cref="SpanId"/> as the labels <c>trace_id</c> and <c>span_id</c>, 32 and 16 lowercase hex
/// digits (<see cref="ActivityTraceId.ToHexString"/>, <see cref="ActivitySpanId.ToHexString"/>),
/// and <see cref="Timestamp"/> in seconds since the Unix epoch.</para>
/// <para>Immutable; a copy of what a series' exemplar slot held when it was read.</para>
/// </remarks>
public readonly struct Exemplar
{
    /// <summary>Creates an exemplar.</summary>
    /// <param name="value">The measurement: a counter's increment or the value a histogram recorded.</param>
    /// <param name="timestamp">When it was taken, UTC.</param>
    /// <param name="traceId">The trace of <see cref="Activity.Current"/> when it was taken.</param>
    /// <param name="spanId">The span of <see cref="Activity.Current"/> when it was taken.</param>
    public Exemplar(double value, DateTimeOffset timestamp, ActivityTraceId traceId, ActivitySpanId spanId)
    {
        Value = value;
        Timestamp = timestamp;
        TraceId = traceId;
        SpanId = spanId;
    }

    /// <summary>The measurement: a counter's increment (a <see cref="long"/> one converted, exact up to 2^53) or the value a histogram recorded.</summary>
    public double Value { get; }

    /// <summary>When the measurement was taken, UTC (offset zero), to the tick of <see cref="DateTime.UtcNow"/>.</summary>
    public DateTimeOffset Timestamp { get; }

    /// <summary>The trace of the <see cref="Activity"/> current when the measurement was taken.</summary>
    public ActivityTraceId TraceId { get; }

    /// <summary>The span of the <see cref="Activity"/> current when the measurement was taken.</summary>
    public ActivitySpanId SpanId { get; }
}
