namespace ScalableMetrics.Naming;

/// <summary>The Prometheus metric type an instrument family is exported as.</summary>
internal enum ExportedKind
{
    /// <summary>A monotonic, cumulative sum: sample <c>B_total</c> (and <c>B_created</c> in OpenMetrics).</summary>
    Counter,

    /// <summary>A gauge: sample <c>B</c>.</summary>
    Gauge,

    /// <summary>An explicit-bucket histogram: <c>B_bucket</c>, <c>B_sum</c>, <c>B_count</c>.</summary>
    Histogram,

    /// <summary>A summary without quantiles: <c>B_sum</c> and <c>B_count</c> (and <c>B_created</c> in OpenMetrics).</summary>
    Summary,
}
