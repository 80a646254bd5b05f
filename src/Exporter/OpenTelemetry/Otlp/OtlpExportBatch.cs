namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp;

// STAND-IN for otlp-data's file of the same name (the lead takes theirs): the contract's shape only.

/// <summary>One collected <c>ExportMetricsServiceRequest</c>, committed once the receiver took it.</summary>
internal sealed class OtlpExportBatch(ReadOnlyMemory<byte> body, int dataPointCount)
{
    public ReadOnlyMemory<byte> Body { get; } = body;

    public int DataPointCount { get; } = dataPointCount;

    public void Commit()
    {
    }
}
