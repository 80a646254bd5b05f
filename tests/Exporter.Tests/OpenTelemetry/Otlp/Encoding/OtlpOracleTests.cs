using System.Diagnostics.Metrics;
using System.Globalization;
using System.Net.Http.Headers;
using global::OpenTelemetry;
using global::OpenTelemetry.Exporter;
using global::OpenTelemetry.Metrics;
using Microsoft.Extensions.Logging.Abstractions;
using OpenTelemetry.Proto.Collector.Metrics.V1;
using OpenTelemetry.Proto.Metrics.V1;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;
using static ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.OtlpDecoded;
using DataCase = OpenTelemetry.Proto.Metrics.V1.Metric.DataOneofCase;
using ProtoMetric = OpenTelemetry.Proto.Metrics.V1.Metric;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// The oracle no one here wrote: the same measurements recorded once through OpenTelemetry's SDK
/// and its OTLP exporter (1.20.1, OTLP/HTTP protobuf) and once through ours, both sent to one
/// <see cref="OtlpTestReceiver"/>, decoded with the classes generated from opentelemetry-proto, and
/// compared: names, units, descriptions, kinds, temporality, attributes, values, counts, sums,
/// bucket bounds and counts, and for exponential histograms the values each bucket covers.
/// </summary>
/// <remarks>Times are not compared (each side reads its own clock), nor min and max, which the
/// registry does not keep (OpenTelemetry's histograms do), nor the resource, which each side builds.</remarks>
public class OtlpOracleTests
{
    [Theory]
    [InlineData(OtlpTemporality.Cumulative)]
    [InlineData(OtlpTemporality.Delta)]
    public async Task TheAddMeterPathExportsWhatOpenTelemetryExports(OtlpTemporality temporality)
    {
        string name = "oracle.listened." + temporality + "." + Guid.NewGuid().ToString("N");
        await using OtlpTestReceiver receiver = await OtlpTestReceiver.StartAsync();
        using var meter = new Meter(name, "1.0");
        int round = 0;
        meter.CreateObservableCounter("jobs.done", () => new Measurement<long>(10 * round, new KeyValuePair<string, object?>("queue", "q1")), "{job}", "Jobs done");
        meter.CreateObservableUpDownCounter("jobs.waiting", () => new Measurement<double>(2.5 * round), "{job}");
        meter.CreateObservableGauge("cpu", () => new Measurement<long>(round + 40));
        Counter<long> requests = meter.CreateCounter<long>("http.requests", "{request}", "Requests");
        Counter<double> bytes = meter.CreateCounter<double>("io.bytes", "By");
        UpDownCounter<long> inFlight = meter.CreateUpDownCounter<long>("in.flight");
        Gauge<double> temperature = meter.CreateGauge<double>("temperature", "Cel");
        Histogram<double> latency = meter.CreateHistogram<double>("latency", "ms", "Latency", advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = [1, 10, 100] });
        Histogram<long> payload = meter.CreateHistogram<long>("payload", "By");

        using MeterProvider provider = OpenTelemetryProvider(name, receiver, temporality);
        using var host = new MeterListenerHost([name], "ScalableMetrics", () => new MetricRegistry(), NullLogger.Instance);
        host.Start();
        var collector = new OtlpMetricsCollector(() => OtlpScope.Of(host), [], temporality);

        for (round = 1; round <= 2; round++)
        {
            // Every series changes in every round: OpenTelemetry's delta export leaves out a series that did not.
            requests.Add(round, new("method", "GET"), new("code", 200));
            requests.Add(3, new("method", "POST"), new("ok", true));
            bytes.Add(0.5 * round);
            inFlight.Add(round % 2 == 0 ? -1 : 4);
            temperature.Record(20 + round, new KeyValuePair<string, object?>("room", "a"));
            foreach (double value in new[] { 0.5, 7, 42, 420, round * 3.0 })
            {
                latency.Record(value, new KeyValuePair<string, object?>("route", "/x"));
            }

            payload.Record(round * 600);

            int before = receiver.Requests.Count;
            Assert.True(provider.ForceFlush());
            ExportMetricsServiceRequest theirs = Assert.Single(receiver.DecodedRequests().Skip(before));
            ExportMetricsServiceRequest ours = await SendAsync(receiver, collector);

            // Nine instruments, ten series: a comparison of two empty lists would prove nothing.
            List<string> expected = Describe(theirs, name);
            Assert.Equal(10, expected.Count);
            Assert.Equal(expected, Describe(ours, name));
        }
    }

    [Fact]
    public async Task RegistryHistogramsExportWhatOpenTelemetryExports()
    {
        string name = "oracle.registry." + Guid.NewGuid().ToString("N");
        await using OtlpTestReceiver receiver = await OtlpTestReceiver.StartAsync();
        using var meter = new Meter(name);
        Histogram<double> theirSizes = meter.CreateHistogram<double>("sizes", "By", "Sizes");
        Histogram<double> theirQueries = meter.CreateHistogram<double>("db.query", "s", "Queries", advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = [0.1, 1] });
        using MeterProvider provider = OpenTelemetryProvider(name, receiver, OtlpTemporality.Cumulative);

        var registry = new MetricRegistry();
        PartitionedExponentialHistogram sizes = registry.CreateExponentialHistogram("sizes", "By", "Sizes");
        OperationData queries = registry.CreateOperationData("db.query", "Queries", [0.1, 1]);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope(name, null, registry)], [], OtlpTemporality.Cumulative);

        double[] values = [0.01, 0.3, 0.31, 1.7, 2, 3, 5.5, 60, 61, 62, 700, 4000, 4999];
        foreach (double value in values)
        {
            theirSizes.Record(value, new KeyValuePair<string, object?>("kind", "blob"));
            sizes.Record(value, new KeyValuePair<string, object?>("kind", "blob"));
        }

        double[] seconds = [0.05, 0.25, 0.5, 2.5, 3];
        foreach (double value in seconds)
        {
            theirQueries.Record(value, new KeyValuePair<string, object?>("db", "main"));
            queries.Record(TimeSpan.FromSeconds(value), new KeyValuePair<string, object?>("db", "main"));
        }

        Assert.True(provider.ForceFlush());
        ExportMetricsServiceRequest theirs = Assert.Single(receiver.DecodedRequests());
        ExportMetricsServiceRequest ours = await SendAsync(receiver, collector);

        List<string> expected = Describe(theirs, name);
        Assert.Equal(2, expected.Count);
        Assert.Equal(expected, Describe(ours, name));
        ExponentialHistogramDataPoint point = Assert.Single(Metric(ours, "sizes").ExponentialHistogram.DataPoints);
        Assert.Equal((ulong)values.Length, point.Count);
    }

    private static MeterProvider OpenTelemetryProvider(string meterName, OtlpTestReceiver receiver, OtlpTemporality temporality) =>
        Sdk.CreateMeterProviderBuilder()
            .AddMeter(meterName)
            .AddView("sizes", new Base2ExponentialBucketHistogramConfiguration())
            .AddOtlpExporter((exporter, reader) =>
            {
                exporter.Protocol = OtlpExportProtocol.HttpProtobuf;
                exporter.Endpoint = receiver.MetricsEndpoint;
                reader.TemporalityPreference = temporality == OtlpTemporality.Delta ? MetricReaderTemporalityPreference.Delta : MetricReaderTemporalityPreference.Cumulative;

                // Exports only when the test flushes.
                reader.PeriodicExportingMetricReaderOptions.ExportIntervalMilliseconds = 3_600_000;
            })
            .Build()!;

    private static async Task<ExportMetricsServiceRequest> SendAsync(OtlpTestReceiver receiver, OtlpMetricsCollector collector)
    {
        OtlpExportBatch batch = collector.Collect();
        using var client = new HttpClient();
        using var content = new ReadOnlyMemoryContent(batch.Body);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/x-protobuf");
        int before = receiver.Requests.Count;
        using HttpResponseMessage response = await client.PostAsync(receiver.MetricsEndpoint, content);
        response.EnsureSuccessStatusCode();
        batch.Commit();
        return Assert.Single(receiver.DecodedRequests().Skip(before));
    }

    // Every metric of the scope named scopeName, one line per data point, in a form that compares
    // what both sides must agree on; exponential buckets as the value ranges they cover, at the
    // coarser of the two scales (scales may differ).
    private static List<string> Describe(ExportMetricsServiceRequest request, string scopeName)
    {
        var lines = new List<string>();
        foreach (ScopeMetrics scope in request.ResourceMetrics.SelectMany(r => r.ScopeMetrics).Where(s => s.Scope.Name == scopeName))
        {
            foreach (ProtoMetric metric in scope.Metrics)
            {
                string head = $"{scope.Scope.Name}|{scope.Scope.Version}|{metric.Name}|{metric.Unit}|{metric.Description}|{metric.DataCase}";
                switch (metric.DataCase)
                {
                    case DataCase.Sum:
                        lines.AddRange(metric.Sum.DataPoints.Select(p => $"{head}|{metric.Sum.AggregationTemporality}|monotonic={metric.Sum.IsMonotonic}|{Attributes(p.Attributes)}|{Number(p)}"));
                        break;
                    case DataCase.Gauge:
                        lines.AddRange(metric.Gauge.DataPoints.Select(p => $"{head}|{Attributes(p.Attributes)}|{Number(p)}"));
                        break;
                    case DataCase.Histogram:
                        lines.AddRange(metric.Histogram.DataPoints.Select(p =>
                            $"{head}|{metric.Histogram.AggregationTemporality}|{Attributes(p.Attributes)}|count={p.Count}|sum={Round(p.Sum)}|bounds={string.Join(";", p.ExplicitBounds)}|buckets={string.Join(";", p.BucketCounts)}"));
                        break;
                    case DataCase.ExponentialHistogram:
                        lines.AddRange(metric.ExponentialHistogram.DataPoints.Select(p =>
                            $"{head}|{metric.ExponentialHistogram.AggregationTemporality}|{Attributes(p.Attributes)}|count={p.Count}|sum={Round(p.Sum)}|zero={p.ZeroCount}|buckets@{CommonScale}={Rebucket(p)}"));
                        break;
                    default:
                        lines.Add($"{head}|unexpected");
                        break;
                }
            }
        }

        lines.Sort(StringComparer.Ordinal);
        return lines;
    }

    // The exponential histograms compared here are read at OpenTelemetry's scale (from 20 down to fit
    // 160 buckets) and ours (3); both are brought down to this one, merging 2^k buckets into one.
    private const int CommonScale = 2;

    private static string Rebucket(ExponentialHistogramDataPoint point)
    {
        Assert.True(point.Scale >= CommonScale, $"scale {point.Scale}");
        var merged = new SortedDictionary<int, ulong>();
        for (int j = 0; j < point.Positive.BucketCounts.Count; j++)
        {
            if (point.Positive.BucketCounts[j] != 0)
            {
                int index = (point.Positive.Offset + j) >> (point.Scale - CommonScale);
                merged[index] = merged.GetValueOrDefault(index) + point.Positive.BucketCounts[j];
            }
        }

        return string.Join(";", merged.Select(b => $"({Math.Pow(2, b.Key / (double)(1 << CommonScale)).ToString("G6", CultureInfo.InvariantCulture)}..]={b.Value}"));
    }

    private static string Number(NumberDataPoint point) => point.ValueCase switch
    {
        NumberDataPoint.ValueOneofCase.AsInt => "int:" + point.AsInt,
        NumberDataPoint.ValueOneofCase.AsDouble => "double:" + Round(point.AsDouble),
        _ => "none",
    };

    private static string Round(double value) => Math.Round(value, 9).ToString("R", CultureInfo.InvariantCulture);
}
