namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// The field numbers of opentelemetry-proto's <c>collector/metrics/v1</c>, <c>metrics/v1</c>,
/// <c>common/v1</c> and <c>resource/v1</c> messages that the OTLP encoding writes. The tests decode
/// every body with classes generated from those very files, so a wrong number here fails them.
/// </summary>
internal static class OtlpFields
{
    // ExportMetricsServiceRequest; ResourceMetrics; Resource; ScopeMetrics; InstrumentationScope.
    public const int RequestResourceMetrics = 1;
    public const int ResourceMetricsResource = 1;
    public const int ResourceMetricsScopeMetrics = 2;
    public const int ResourceAttributes = 1;
    public const int ScopeMetricsScope = 1;
    public const int ScopeMetricsMetrics = 2;
    public const int ScopeMetricsSchemaUrl = 3;
    public const int ScopeName = 1;
    public const int ScopeVersion = 2;

    // Metric and its data.
    public const int MetricName = 1;
    public const int MetricDescription = 2;
    public const int MetricUnit = 3;
    public const int MetricGauge = 5;
    public const int MetricSum = 7;
    public const int MetricHistogram = 9;
    public const int MetricExponentialHistogram = 10;

    // Gauge, Sum, Histogram, ExponentialHistogram.
    public const int DataPoints = 1;
    public const int AggregationTemporality = 2;
    public const int SumIsMonotonic = 3;

    // AggregationTemporality values.
    public const int TemporalityDelta = 1;
    public const int TemporalityCumulative = 2;

    // NumberDataPoint.
    public const int NumberStartTime = 2;
    public const int NumberTime = 3;
    public const int NumberAsDouble = 4;
    public const int NumberExemplars = 5;
    public const int NumberAsInt = 6;
    public const int NumberAttributes = 7;

    // HistogramDataPoint.
    public const int HistogramStartTime = 2;
    public const int HistogramTime = 3;
    public const int HistogramCount = 4;
    public const int HistogramSum = 5;
    public const int HistogramBucketCounts = 6;
    public const int HistogramExplicitBounds = 7;
    public const int HistogramExemplars = 8;
    public const int HistogramAttributes = 9;

    // ExponentialHistogramDataPoint and its Buckets.
    public const int ExponentialAttributes = 1;
    public const int ExponentialStartTime = 2;
    public const int ExponentialTime = 3;
    public const int ExponentialCount = 4;
    public const int ExponentialSum = 5;
    public const int ExponentialScale = 6;
    public const int ExponentialZeroCount = 7;
    public const int ExponentialPositive = 8;
    public const int ExponentialExemplars = 11;
    public const int ExponentialZeroThreshold = 14;
    public const int BucketsOffset = 1;
    public const int BucketsCounts = 2;

    // Exemplar.
    public const int ExemplarTime = 2;
    public const int ExemplarAsDouble = 3;
    public const int ExemplarSpanId = 4;
    public const int ExemplarTraceId = 5;
    public const int ExemplarAsInt = 6;

    // KeyValue, AnyValue, ArrayValue.
    public const int KeyValueKey = 1;
    public const int KeyValueValue = 2;
    public const int AnyString = 1;
    public const int AnyBool = 2;
    public const int AnyInt = 3;
    public const int AnyDouble = 4;
    public const int AnyArray = 5;
    public const int ArrayValues = 1;
}
