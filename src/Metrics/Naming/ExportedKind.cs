namespace ScalableMetrics.Naming;

/// <summary>
/// The kind a family is exported as: what the core names an instrument's family by
/// (<see cref="ExportedFamily"/>) and what every exposition writer writes it as. One enum for
/// both sides, so that neither maps its own onto the other's.
/// </summary>
/// <remarks>A kind that no format carries (a metric type of a later OpenTelemetry version) has
/// no value here: where a source meets one, it has no kind (<see langword="null"/>) and is left out.</remarks>
internal enum ExportedKind
{
    /// <summary>A monotonic, cumulative sum: sample <c>B_total</c> (and <c>B_created</c> in OpenMetrics).</summary>
    Counter,

    /// <summary>A gauge, or a non-monotonic sum: sample <c>B</c>.</summary>
    Gauge,

    /// <summary>An explicit-bucket histogram: <c>B_bucket</c>, <c>B_sum</c>, <c>B_count</c>; an
    /// exponential one too, as a native histogram in protobuf and its buckets in the text formats.</summary>
    Histogram,

    /// <summary>A summary without quantiles: <c>B_sum</c> and <c>B_count</c> (and <c>B_created</c> in OpenMetrics).</summary>
    Summary,

    /// <summary>An info family of one sample of value 1 whose labels are the information
    /// (<c>target_info</c>): <c>info</c> in OpenMetrics, a gauge in the text format 0.0.4 and protobuf.</summary>
    Info,
}
