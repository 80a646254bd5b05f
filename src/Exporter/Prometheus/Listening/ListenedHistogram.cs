namespace ScalableMetrics.Exporter.Listening;

/// <summary>A <c>Histogram&lt;T&gt;</c>, recorded into a <see cref="PartitionedHistogram"/>.</summary>
/// <param name="histogram">The registry histogram.</param>
/// <param name="sourceTags">The instrument's and its meter's tags.</param>
/// <param name="drops">Where refused measurements are counted.</param>
/// <param name="floatBoundaries">For a <c>Histogram&lt;float&gt;</c> whose histogram has the boundaries it advised,
/// kept as their shortest decimals (0.1f as 0.1) where a cast would widen one (0.10000000149011612): the boundaries as
/// it advised them, sorted, so that a measurement equal to one counts in that boundary's bucket, as OpenTelemetry
/// counts it (it buckets by the widened boundaries and exports the shortest ones), its exemplar carrying the kept
/// boundary. Null otherwise.</param>
internal sealed class ListenedHistogram(PartitionedHistogram histogram, KeyValuePair<string, object?>[] sourceTags, ListenerDrops drops, float[]? floatBoundaries = null)
    : ListenedSeriesInstrument<HistogramSeries>(histogram.Name, histogram.CreateRecorder(sourceTags), drops)
{
    // The histogram's boundaries, in the order of floatBoundaries: what an exemplar of a measurement equal to one carries.
    private readonly IReadOnlyList<double> _boundaries = histogram.Boundaries;

    public override void Record(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags) => SeriesFor(tags)?.RecordValid(value);

    public override void Record(double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (double.IsNaN(value))
        {
            Drop("a histogram value must not be NaN");
            return;
        }

        if (SeriesFor(tags) is not { } series)
        {
            return;
        }

        // Only a measurement equal to a boundary lies above its kept boundary and in its bucket: any
        // other float is below or above the whole interval of doubles that round to that boundary.
        // Its sum adds the measurement as it came; an exemplar of it carries the boundary (0.1, not
        // 0.10000000149011612): OpenMetrics requires a bucket's exemplar to lie within the bucket.
        int boundary;
        if (floatBoundaries is not null && (boundary = Array.BinarySearch(floatBoundaries, (float)value)) >= 0)
        {
            series.RecordValidInBucket(boundary, value, exemplarValue: _boundaries[boundary]);
        }
        else
        {
            series.RecordValid(value);
        }
    }
}
