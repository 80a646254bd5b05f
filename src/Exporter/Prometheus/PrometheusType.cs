namespace ScalableMetrics.Exporter.Prometheus;

/// <summary>The Prometheus metric type a family is written as.</summary>
internal enum PrometheusType
{
    /// <summary>Not written: a type the text format 0.0.4 cannot carry (exponential histograms).</summary>
    Unsupported = 0,

    /// <summary>A monotonic sum, cumulative.</summary>
    Counter,

    /// <summary>A gauge or a non-monotonic sum.</summary>
    Gauge,

    /// <summary>An explicit-bucket histogram: <c>_bucket</c>, <c>_sum</c> and <c>_count</c> samples.</summary>
    Histogram,

    /// <summary>A summary without quantiles: <c>_sum</c> and <c>_count</c> samples (an <see cref="OperationData"/>).</summary>
    Summary,

    /// <summary>An info family of one sample of value 1 whose labels are the information
    /// (<c>target_info</c>): <c>info</c> in OpenMetrics, a gauge in the text format 0.0.4.</summary>
    Info,
}
