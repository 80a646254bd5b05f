namespace ScalableMetrics.Scaling;

/// <summary>What to measure and where to write it, as parsed from the command line.</summary>
/// <param name="Threads">The thread counts, one point each, ascending.</param>
/// <param name="SecondsPerPoint">How long each point runs.</param>
/// <param name="Repeats">How many times each point runs; the median is reported.</param>
/// <param name="Pin">Whether worker i is pinned to the i-th processor the process may use.</param>
/// <param name="ImplementationIds">The implementations to measure, in catalog order.</param>
/// <param name="CsvPath">Where to write the CSV, or null.</param>
/// <param name="SvgPath">Where to write the chart, or null.</param>
/// <param name="MaxBusyElsewhere">Retake a repeat during which other processes used more processors' worth of time than this; null to keep every repeat.</param>
internal sealed record ScalingOptions(
    IReadOnlyList<int> Threads,
    double SecondsPerPoint,
    int Repeats,
    bool Pin,
    IReadOnlyList<string> ImplementationIds,
    string? CsvPath,
    string? SvgPath,
    double? MaxBusyElsewhere);
