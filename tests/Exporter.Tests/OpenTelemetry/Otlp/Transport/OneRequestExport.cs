using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Transport;

/// <summary>A request sent as an export of its own, as <c>OtlpBatchSender</c> sends an export of one request: the transport tests' way in.</summary>
internal static class OneRequestExport
{
    /// <summary>Sends <paramref name="request"/> (an uncompressed <c>ExportMetricsServiceRequest</c>) as an
    /// export of its own: taken cleanly after a failure, it logs that exports succeed again.</summary>
    /// <returns>Whether the receiver took it; false when it failed (logged) or <paramref name="cancellationToken"/> was cancelled.</returns>
    public static async Task<bool> ExportAsync(this OtlpExportClient client, ReadOnlyMemory<byte> request, CancellationToken cancellationToken)
    {
        client.Log.BeginExport();
        bool accepted = await client.SendAsync(request, cancellationToken).ConfigureAwait(false) == OtlpOutcome.Accepted;
        client.Log.EndExport(accepted);
        return accepted;
    }
}
