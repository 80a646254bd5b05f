// Results (2 logical cores, shared machine): perf/results/README.md, section "OTLP export (issue 20)". Run:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories otlp-export --job short

using System.Diagnostics.Metrics;
using System.Net;
using System.Net.Http.Headers;
using BenchmarkDotNet.Attributes;
using OpenTelemetry;
using OpenTelemetry.Exporter;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;
using ScalableMetrics.Instruments;
using ScalableMetrics.Scaling.Implementations;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// One OTLP export of 10,000 counter series and 1,000 histogram series (default boundaries, 16
/// buckets each): ours (<see cref="OtlpMetricsCollector.Collect"/>, then the body posted) against
/// OpenTelemetry's SDK exporting the same series through its OTLP exporter
/// (<c>MeterProvider.ForceFlush</c>: collect, serialize, post). Both post over OTLP/HTTP protobuf to
/// an <see cref="HttpMessageHandler"/> that answers 200 at once, so neither pays for a network.
/// </summary>
/// <remarks>Cumulative temporality on both sides. The setup checks that each side's body holds every
/// series (by its size), so that an exporter which left series out is not measured as a fast one.</remarks>
[MemoryDiagnoser]
[BenchmarkCategory("otlp-export")]
public class OtlpExportBenchmarks
{
    private const int CounterSeries = 10_000;
    private const int HistogramSeries = 1_000;
    private const string MeterName = "bench.otlp";

    private readonly AcceptingHandler _handler = new();
    private readonly InstrumentSnapshot _snapshot = new();
    private OtlpMetricsCollector _collector = null!;
    private MetricRegistry _registry = null!;
    private HttpClient _client = null!;
    private Meter _meter = null!;
    private MeterProvider _provider = null!;

    [GlobalSetup]
    public void Setup()
    {
        _client = new HttpClient(_handler);
        MetricRegistry registry = _registry = ScrapeBenchmarkRegistry.WithCounterSeries(CounterSeries);
        PartitionedHistogram histogram = registry.CreateHistogram("bench.duration", "ms");
        for (int i = 0; i < HistogramSeries; i++)
        {
            HistogramSeries series = histogram.Bind(new KeyValuePair<string, object?>("series", (long)i));
            foreach (double value in HistogramValues.Cycle)
            {
                series.Record(value);
            }
        }

        _collector = new OtlpMetricsCollector(() => [new OtlpScope(MeterName, null, registry)], [new("service.name", "bench")], OtlpTemporality.Cumulative);

        _meter = new Meter(MeterName);
        Counter<long> counter = _meter.CreateCounter<long>("bench.requests", "{request}");
        Histogram<double> theirs = _meter.CreateHistogram<double>("bench.duration", "ms");
        _provider = Sdk.CreateMeterProviderBuilder()
            .AddMeter(MeterName)
            .AddView("bench.requests", new MetricStreamConfiguration { CardinalityLimit = 2 * CounterSeries })
            .AddView("bench.duration", new MetricStreamConfiguration { CardinalityLimit = 2 * HistogramSeries })
            .AddOtlpExporter((exporter, reader) =>
            {
                exporter.Protocol = OtlpExportProtocol.HttpProtobuf;
                exporter.Endpoint = new Uri("http://127.0.0.1:4318/v1/metrics");
                exporter.HttpClientFactory = () => new HttpClient(_handler);
                reader.PeriodicExportingMetricReaderOptions.ExportIntervalMilliseconds = 3_600_000;
            })
            .Build()!;
        for (int i = 0; i < CounterSeries; i++)
        {
            counter.Add(i + 1, new KeyValuePair<string, object?>("http.route", "/api/items/" + (i % 100)), new KeyValuePair<string, object?>("instance", (long)i));
        }

        for (int i = 0; i < HistogramSeries; i++)
        {
            foreach (double value in HistogramValues.Cycle)
            {
                theirs.Record(value, new KeyValuePair<string, object?>("series", (long)i));
            }
        }

        // Each body holds every series: a counter point takes more than 40 bytes, a histogram point more than 200.
        long minimum = (CounterSeries * 40L) + (HistogramSeries * 200L);
        Ours();
        CheckBody("ours", minimum);
        OpenTelemetryOtlp();
        CheckBody("OpenTelemetry's", minimum);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _provider.Dispose();
        _meter.Dispose();
        _client.Dispose();
    }

    [Benchmark(Baseline = true, Description = "ScalableMetrics OTLP: Collect + post")]
    public int Ours()
    {
        OtlpExportBatch batch = _collector.Collect();
        using var content = new ReadOnlyMemoryContent(batch.Body);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/x-protobuf");
        using HttpResponseMessage response = _client.PostAsync(_handler.Endpoint, content).GetAwaiter().GetResult();
        batch.Commit();
        return batch.DataPointCount;
    }

    /// <summary>The registry's part of <see cref="Ours"/>: the readings every collection takes (added after the recorded run).</summary>
    [Benchmark(Description = "registry readings only")]
    public int Readings()
    {
        int series = 0;
        foreach (Instrument instrument in _registry.Instruments)
        {
            series += instrument switch
            {
                PartitionedCounter counter => counter.Collect().Count,
                PartitionedHistogram histogram => histogram.Collect().Count,
                _ => 0,
            };
        }

        return series;
    }

    /// <summary>The registry's part of <see cref="Ours"/> since it reads into kept arrays, as the collector does now.</summary>
    [Benchmark(Description = "registry reads into kept arrays only")]
    public int ReadsIntoArrays()
    {
        int series = 0;
        foreach (Instrument instrument in _registry.Instruments)
        {
            if (instrument is PartitionedCounter or PartitionedHistogram)
            {
                instrument.ReadInto(_snapshot);
                series += _snapshot.Count;
            }
        }

        return series;
    }

    [Benchmark(Description = "OpenTelemetry OTLP exporter: ForceFlush")]
    public bool OpenTelemetryOtlp() => _provider.ForceFlush();

    private void CheckBody(string side, long minimum)
    {
        if (_handler.LastLength < minimum)
        {
            throw new InvalidOperationException($"{side} body is {_handler.LastLength} bytes, below the {minimum} that {CounterSeries} counter and {HistogramSeries} histogram series take.");
        }
    }

    /// <summary>
    /// Answers every request 200 with an empty body, after reading the request's content through
    /// (as a socket would send it: written to a stream, not copied into an array of its own first,
    /// which would charge both sides a copy of the body no real export makes).
    /// </summary>
    private sealed class AcceptingHandler : HttpMessageHandler
    {
        public Uri Endpoint { get; } = new("http://127.0.0.1:4318/v1/metrics");

        public long LastLength { get; private set; }

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            var counted = new CountingStream();
            if (request.Content is not null)
            {
                await request.Content.CopyToAsync(counted, cancellationToken);
            }

            LastLength = counted.Length;
            return new HttpResponseMessage(HttpStatusCode.OK) { Content = new ByteArrayContent([]) };
        }

        protected override HttpResponseMessage Send(HttpRequestMessage request, CancellationToken cancellationToken) =>
            SendAsync(request, cancellationToken).GetAwaiter().GetResult();
    }

    /// <summary>A write-only stream that keeps only how many bytes were written to it.</summary>
    private sealed class CountingStream : Stream
    {
        private long _length;

        public override bool CanRead => false;

        public override bool CanSeek => false;

        public override bool CanWrite => true;

        public override long Length => _length;

        public override long Position
        {
            get => _length;
            set => throw new NotSupportedException();
        }

        public override void Write(byte[] buffer, int offset, int count) => _length += count;

        public override void Write(ReadOnlySpan<byte> buffer) => _length += buffer.Length;

        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
        {
            _length += buffer.Length;
            return ValueTask.CompletedTask;
        }

        public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        {
            _length += count;
            return Task.CompletedTask;
        }

        public override void Flush()
        {
        }

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();
    }
}
