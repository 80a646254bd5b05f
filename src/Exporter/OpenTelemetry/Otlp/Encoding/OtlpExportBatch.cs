namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// One collection of an <see cref="OtlpMetricsCollector"/>: the request body to send, and the
/// means to tell the collector that the receiver accepted it (<see cref="Commit"/>).
/// </summary>
/// <remarks>
/// <para><see cref="Body"/> lies in the collector's buffer: it is valid until the collector's next
/// <see cref="OtlpMetricsCollector.Collect"/>, which writes over it, so send it (retries included)
/// before collecting again, as the export loop does (never two exports at once).</para>
/// <para>Not thread-safe; <see cref="Commit"/> is called by the one export under way.</para>
/// </remarks>
internal sealed class OtlpExportBatch
{
    private readonly OtlpMetricsCollector _collector;
    private readonly long _generation;
    private readonly ulong _timeUnixNano;

    internal OtlpExportBatch(OtlpMetricsCollector collector, long generation, ulong timeUnixNano, ReadOnlyMemory<byte> body, int dataPointCount)
    {
        _collector = collector;
        _generation = generation;
        _timeUnixNano = timeUnixNano;
        Body = body;
        DataPointCount = dataPointCount;
    }

    /// <summary>An OTLP <c>ExportMetricsServiceRequest</c> (opentelemetry-proto <c>collector/metrics/v1</c>), protobuf, uncompressed.</summary>
    public ReadOnlyMemory<byte> Body { get; }

    /// <summary>The number of data points in <see cref="Body"/> (what a receiver's <c>rejected_data_points</c> counts against).</summary>
    public int DataPointCount { get; }

    /// <summary>
    /// Tells the collector that the receiver accepted this batch. For delta temporality, each
    /// series' baseline moves to this batch's reading, so the next collection's deltas start here.
    /// If never called (the export failed), the next collection's deltas are measured from the last
    /// committed batch, so the change this batch carried goes out with the next export: nothing
    /// lost, nothing counted twice.
    /// </summary>
    /// <remarks>Under either temporality, the last point of a series no longer read (removed, or no
    /// longer reported by its callback) that an earlier batch carried and this one carried again is
    /// let go; until then every collection writes it again. Cumulative temporality moves no baseline.
    /// Does nothing for a batch older than the collector's last collection (whose readings are the
    /// newer ones now); a batch committed twice is committed once.</remarks>
    public void Commit() => _collector.Commit(_generation, _timeUnixNano);
}
