namespace ScalableMetrics.Exporter;

// STAND-IN for otlp-data's file of the same name (the lead takes theirs): the contract's enum only.

/// <summary>The aggregation temporality of the OTLP export's sums and histograms.</summary>
public enum OtlpTemporality
{
    /// <summary>Every export carries the totals since the instrument's creation.</summary>
    Cumulative = 0,

    /// <summary>Every export carries what changed since the previous accepted export.</summary>
    Delta = 1,
}
