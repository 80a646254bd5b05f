using Google.Protobuf;
using Microsoft.Extensions.Logging;
using OpenTelemetry.Proto.Collector.Metrics.V1;
using OpenTelemetry.Proto.Metrics.V1;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp.Transport;

/// <summary>
/// An export larger than the size cap goes as several requests, each under it, to a receiver that
/// refuses anything over 4 MiB as the OpenTelemetry Collector does (127.0.0.1), over gRPC and HTTP:
/// whole data points, each once, the totals exact, cumulative and delta; a delta export partly
/// accepted is neither lost nor counted twice.
/// </summary>
public sealed class OtlpBatchingTests : IDisposable
{
    // The OpenTelemetry Collector's gRPC receiver default (max_recv_msg_size_mib: 4).
    private const int ReceiverLimit = 4 * 1024 * 1024;
    private const int Boundaries = 100;
    private const int HistogramSeries = 12_500;
    private const int CounterSeries = 3_000;

    private readonly OtlpTestClients _clients = new();

    public static TheoryData<bool, OtlpTemporality> Transports => new()
    {
        { true, OtlpTemporality.Cumulative },
        { true, OtlpTemporality.Delta },
        { false, OtlpTemporality.Cumulative },
        { false, OtlpTemporality.Delta },
    };

    public void Dispose() => _clients.Dispose();

    [Theory]
    [MemberData(nameof(Transports))]
    public async Task A20MegabyteCollectionGoesAsRequestsUnderTheCapWithExactTotals(bool grpc, OtlpTemporality temporality)
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync(http2: grpc);
        receiver.MaxMessageBytes = ReceiverLimit;
        var registry = new MetricRegistry(new MetricRegistryOptions { MaxSeriesPerInstrument = HistogramSeries + 10, Strategy = PartitionStrategy.PerThread });
        PartitionedHistogram latency = registry.CreateHistogram("big.latency", "s", "Latency.", [.. Enumerable.Range(1, Boundaries).Select(i => i * 0.01)]);
        PartitionedCounter requests = registry.CreateCounter("big.requests", "{request}");
        Record(latency, requests, round: 1);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("big.scope", "1.0", registry)], [new("service.name", "batching")], temporality);
        var sender = new OtlpBatchSender(grpc ? _clients.Grpc(receiver.BaseAddress) : _clients.Http(receiver.Url("/v1/metrics")), ScalableMetricsOtlpOptions.DefaultMaxRequestBytes);

        Assert.True(await sender.ExportAsync(collector, CancellationToken.None));

        // What was sent, had it gone whole, would have been refused: over 20 MB.
        List<ExportMetricsServiceRequest> first = Decode(receiver.Requests);
        Assert.True(first.Sum(r => r.CalculateSize()) > 20_000_000, $"{first.Sum(r => r.CalculateSize())} bytes");
        Assert.Equal(sender.LastRequestCount, first.Count);
        Assert.InRange(first.Count, 7, 20);
        Assert.All(receiver.Requests, r => Assert.InRange(r.Message.Length, 1, ScalableMetricsOtlpOptions.DefaultMaxRequestBytes));
        AssertTotals(first, round: 1, expectedRound: 1);

        // A second export: the change since the first (delta), or everything again (cumulative).
        Record(latency, requests, round: 2);
        Assert.True(await sender.ExportAsync(collector, CancellationToken.None));

        List<ExportMetricsServiceRequest> second = Decode(receiver.Requests.Skip(first.Count));
        Assert.All(receiver.Requests, r => Assert.InRange(r.Message.Length, 1, ScalableMetricsOtlpOptions.DefaultMaxRequestBytes));
        AssertTotals(second, round: 2, expectedRound: temporality == OtlpTemporality.Delta ? 2 : 0);
        Assert.Empty(_clients.Warnings);
    }

    [Fact]
    public async Task ADeltaExportPartlyAcceptedIsNeitherLostNorCountedTwice()
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync();
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread });
        PartitionedCounter counter = registry.CreateCounter("split.requests");
        for (int i = 0; i < 400; i++)
        {
            counter.Add(i + 1, new KeyValuePair<string, object?>("series", (long)i));
        }

        var collector = new OtlpMetricsCollector(() => [new OtlpScope("s", null, registry)], [], OtlpTemporality.Delta);
        var sender = new OtlpBatchSender(_clients.Http(receiver.Url("/v1/metrics")), maxRequestBytes: 4096);

        // The first two requests are taken, the third not (retryable, but its retry would end past
        // the export timeout): the export is not whole, and the third may yet be taken.
        receiver.Enqueue(OtlpFault.Ok, OtlpFault.Ok, new OtlpFault.Answer(503, "unavailable once", RetryAfter: TimeSpan.FromHours(1)));
        Assert.False(await sender.ExportAsync(collector, CancellationToken.None));
        int firstExport = sender.LastRequestCount;
        Assert.True(firstExport > 3, $"{firstExport} requests");
        Assert.Equal(3, receiver.Requests.Count);

        // Meanwhile more is counted; the next export first sends what was not taken, then the new changes.
        for (int i = 0; i < 400; i++)
        {
            counter.Add(1000, new KeyValuePair<string, object?>("series", (long)i));
        }

        Assert.True(await sender.ExportAsync(collector, CancellationToken.None));

        // Every request but the unanswered one was taken: their deltas add up to exactly what was counted.
        IReadOnlyList<FaultInjectedRequest> received = receiver.Requests;
        Assert.Equal(3 + (firstExport - 2) + sender.LastRequestCount, received.Count);
        Dictionary<string, long> totals = [];
        foreach (ExportMetricsServiceRequest request in Decode(received.Where((_, i) => i != 2)))
        {
            foreach (NumberDataPoint point in Points(request, "split.requests"))
            {
                string series = OtlpDecoded.Attributes(point.Attributes);
                totals[series] = totals.GetValueOrDefault(series) + point.AsInt;
            }
        }

        Assert.Equal(400, totals.Count);
        Assert.All(Enumerable.Range(0, 400), i => Assert.Equal(i + 1 + 1000, totals[$"series=i:{i}"]));
    }

    // OTLP specification (otlp.md, "Failures"): only 429, 502, 503 and 504 are retryable; "All other
    // 4xx or 5xx response status codes MUST NOT be retried."
    [Fact]
    public async Task ARequestRefusedWithANonRetryableStatusIsDroppedNotSentAgain()
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync();
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread });
        PartitionedCounter counter = registry.CreateCounter("split.requests");
        for (int i = 0; i < 400; i++)
        {
            counter.Add(i + 1, new KeyValuePair<string, object?>("series", (long)i));
        }

        var collector = new OtlpMetricsCollector(() => [new OtlpScope("s", null, registry)], [], OtlpTemporality.Delta);
        var sender = new OtlpBatchSender(_clients.Http(receiver.Url("/v1/metrics")), maxRequestBytes: 4096);

        // The first request is taken, the second refused with 400 Bad Request; the rest are still sent.
        receiver.Enqueue(OtlpFault.Ok, new OtlpFault.Answer(400, "bad request"));
        Assert.False(await sender.ExportAsync(collector, CancellationToken.None));
        int firstExport = sender.LastRequestCount;
        Assert.Equal(firstExport, receiver.Requests.Count);
        byte[] refused = receiver.Requests[1].Message;

        // The next export collects afresh: the refused points are neither resent nor in its deltas.
        for (int i = 0; i < 400; i++)
        {
            counter.Add(1000, new KeyValuePair<string, object?>("series", (long)i));
        }

        Assert.True(await sender.ExportAsync(collector, CancellationToken.None));

        Assert.DoesNotContain(receiver.Requests.Skip(firstExport), r => r.Message.AsSpan().SequenceEqual(refused));
        Assert.All(
            Decode(receiver.Requests.Skip(firstExport)).SelectMany(r => Points(r, "split.requests")),
            p => Assert.Equal(1000, p.AsInt));
        Assert.Contains(_clients.Warnings, w => w.Contains("HTTP 400", StringComparison.Ordinal) && w.Contains("dropped", StringComparison.Ordinal));
    }

    // docs/otlp.md, "What it logs": a failure is logged once per cause until an export succeeds
    // again. A request taken while a later one of the same export is refused is no success: every
    // export fails alike, and is logged once, not a Warning and a "succeed again" per export.
    [Fact]
    public async Task ASplitExportWhoseLaterRequestIsRefusedEveryTimeLogsTheCauseOnce()
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync();
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread });
        PartitionedCounter counter = registry.CreateCounter("split.requests");
        for (int i = 0; i < 200; i++)
        {
            counter.Add(1, new KeyValuePair<string, object?>("series", (long)i));
        }

        var collector = new OtlpMetricsCollector(() => [new OtlpScope("s", null, registry)], [], OtlpTemporality.Cumulative);
        var sender = new OtlpBatchSender(_clients.Http(receiver.Url("/v1/metrics")), maxRequestBytes: 1024);

        for (int export = 0; export < 5; export++)
        {
            // The first request of each export is taken, the second refused (400), the rest taken.
            receiver.Enqueue(OtlpFault.Ok, new OtlpFault.Answer(400, "bad data point"));
            Assert.False(await sender.ExportAsync(collector, CancellationToken.None));
            Assert.True(sender.LastRequestCount > 2, $"{sender.LastRequestCount} requests");
        }

        (EventId EventId, LogLevel Level, string Message) shown =
            Assert.Single(_clients.Logger.Events, e => e.Level >= LogLevel.Information);
        Assert.Equal(70, shown.EventId.Id);

        // Once an export is taken whole, that is logged once.
        Assert.True(await sender.ExportAsync(collector, CancellationToken.None));
        Assert.Equal([70, 62], _clients.Logger.Events.Where(e => e.Level >= LogLevel.Information).Select(e => e.EventId.Id));
    }

    // ScalableMetricsOtlpOptions.ExportTimeout: "How long one export may take, retries included";
    // docs/otlp.md: "ExportTimeout (retries included)"; the specification's OTEL_METRIC_EXPORT_TIMEOUT:
    // "Maximum allowed time (in milliseconds) to export data". Each request here takes 0.8 s, well
    // within Timeout, but the export's requests together would take several times ExportTimeout. The
    // time is a clock the requests move (no wall time is measured): the export ends at its timeout,
    // its remaining requests held for the next export, every point then taken once.
    [Fact]
    public async Task ASplitExportEndsWithinTheExportTimeout()
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync();
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread });
        PartitionedCounter counter = registry.CreateCounter("split.requests");
        for (int i = 0; i < 400; i++)
        {
            counter.Add(i + 1, new KeyValuePair<string, object?>("series", (long)i));
        }

        TimeSpan exportTimeout = TimeSpan.FromSeconds(2);
        var clock = new ManualClock();
        (OtlpExportClient client, SlowTransport transport) = _clients.SlowHttp(receiver.Url("/v1/metrics"), clock, TimeSpan.FromMilliseconds(800), timeout: TimeSpan.FromSeconds(10), exportTimeout);
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("s", null, registry)], [], OtlpTemporality.Delta);
        var sender = new OtlpBatchSender(client, maxRequestBytes: 4096);

        Assert.False(await sender.ExportAsync(collector, CancellationToken.None));

        // Two requests took 1.6 s; the third was cut when the export's 2 s ran out, not sent.
        Assert.True(sender.LastRequestCount >= 5, $"{sender.LastRequestCount} requests");
        Assert.True(clock.Elapsed <= exportTimeout, $"the export took {clock.Elapsed.TotalSeconds:0.0} s for {receiver.Requests.Count} requests, each answered within Timeout, under an ExportTimeout of {exportTimeout.TotalSeconds} s");
        Assert.Equal(2, receiver.Requests.Count);
        Assert.Contains(_clients.Warnings, w => w.Contains("export timeout", StringComparison.Ordinal));

        // The next export, its requests fast, sends the held ones: every point taken exactly once.
        transport.Latency = TimeSpan.Zero;
        Assert.True(await sender.ExportAsync(collector, CancellationToken.None));
        Dictionary<string, long> totals = [];
        foreach (NumberDataPoint point in Decode(receiver.Requests).SelectMany(r => Points(r, "split.requests")))
        {
            string series = OtlpDecoded.Attributes(point.Attributes);
            totals[series] = totals.GetValueOrDefault(series) + point.AsInt;
        }

        Assert.Equal(400, totals.Count);
        Assert.All(Enumerable.Range(0, 400), i => Assert.Equal(i + 1, totals[$"series=i:{i}"]));
    }

    // A request whose turn comes when the export's time is spent is not sent: here the first two
    // requests take the whole export timeout, so the third is held unsent, and goes with the next export.
    [Fact]
    public async Task ARequestWhoseTurnComesPastTheExportTimeoutIsHeldNotSent()
    {
        await using FaultInjectingOtlpReceiver receiver = await FaultInjectingOtlpReceiver.StartAsync();
        var registry = new MetricRegistry(new MetricRegistryOptions { Strategy = PartitionStrategy.PerThread });
        PartitionedCounter counter = registry.CreateCounter("split.requests");
        for (int i = 0; i < 400; i++)
        {
            counter.Add(i + 1, new KeyValuePair<string, object?>("series", (long)i));
        }

        var clock = new ManualClock();
        (OtlpExportClient client, SlowTransport transport) = _clients.SlowHttp(receiver.Url("/v1/metrics"), clock, TimeSpan.FromSeconds(1), timeout: TimeSpan.FromSeconds(10), exportTimeout: TimeSpan.FromSeconds(2));
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("s", null, registry)], [], OtlpTemporality.Delta);
        var sender = new OtlpBatchSender(client, maxRequestBytes: 4096);

        Assert.False(await sender.ExportAsync(collector, CancellationToken.None));

        Assert.Equal(TimeSpan.FromSeconds(2), clock.Elapsed);
        Assert.Equal(2, receiver.Requests.Count);
        Assert.Contains(_clients.Warnings, w => w.Contains("ran out before this request of it was sent", StringComparison.Ordinal));

        transport.Latency = TimeSpan.Zero;
        Assert.True(await sender.ExportAsync(collector, CancellationToken.None));
        long[] values = [.. Decode(receiver.Requests).SelectMany(r => Points(r, "split.requests")).Select(p => p.AsInt)];
        Assert.Equal(400, values.Length);
        Assert.Equal(400L * 401 / 2, values.Sum());
    }

    [Fact]
    public void SplitRequestsCarryEveryPointOnceUnderItsOwnResourceScopeAndMetric()
    {
        var registry = new MetricRegistry();
        PartitionedHistogram histogram = registry.CreateHistogram("h", "ms", "A histogram.", [1, 2, 3]);
        PartitionedDoubleCounter counter = registry.CreateDoubleCounter("c", "By", "A counter.");
        for (int i = 0; i < 200; i++)
        {
            histogram.Record(i % 4, new KeyValuePair<string, object?>("i", (long)i));
            counter.Add(i + 0.5, new KeyValuePair<string, object?>("i", (long)i));
        }

        var collector = new OtlpMetricsCollector(() => [new OtlpScope("s1", "1", registry), new OtlpScope("s2", null, registry)], [new("service.name", "svc")], OtlpTemporality.Delta);
        OtlpExportBatch batch = collector.Collect();
        var whole = ExportMetricsServiceRequest.Parser.ParseFrom(batch.Body.Span);

        IReadOnlyList<ReadOnlyMemory<byte>> parts = new OtlpRequestSplitter().Split(batch.Body, 2048);

        Assert.True(parts.Count > 10, $"{parts.Count} requests");
        Assert.All(parts, p => Assert.InRange(p.Length, 1, 2048));
        List<ExportMetricsServiceRequest> decoded = [.. parts.Select(p => ExportMetricsServiceRequest.Parser.ParseFrom(p.Span))];
        Assert.All(decoded, r => Assert.Equal(whole.ResourceMetrics[0].Resource, Assert.Single(r.ResourceMetrics).Resource));

        // Put back together, scope by scope and metric by metric, the parts are the whole request.
        var joined = new ExportMetricsServiceRequest();
        var resource = new ResourceMetrics { Resource = whole.ResourceMetrics[0].Resource };
        joined.ResourceMetrics.Add(resource);
        foreach (ScopeMetrics scope in decoded.SelectMany(r => r.ResourceMetrics[0].ScopeMetrics))
        {
            ScopeMetrics? last = resource.ScopeMetrics.LastOrDefault();
            if (last is null || !last.Scope.Equals(scope.Scope))
            {
                resource.ScopeMetrics.Add(last = new ScopeMetrics { Scope = scope.Scope });
            }

            foreach (Metric metric in scope.Metrics)
            {
                Metric? previous = last.Metrics.LastOrDefault();
                if (previous is not null && previous.Name == metric.Name && previous.DataCase == metric.DataCase)
                {
                    Append(previous, metric);
                }
                else
                {
                    last.Metrics.Add(metric.Clone());
                }
            }
        }

        Assert.Equal(whole, joined);
    }

    [Fact]
    public void ADataPointLargerThanTheCapGoesAloneAndABodyUnderItAsItIs()
    {
        var registry = new MetricRegistry();
        PartitionedHistogram histogram = registry.CreateHistogram("wide", null, null, [.. Enumerable.Range(1, 200).Select(i => (double)i)]);
        histogram.Record(1, new KeyValuePair<string, object?>("k", "a"));
        histogram.Record(2, new KeyValuePair<string, object?>("k", "b"));
        var collector = new OtlpMetricsCollector(() => [new OtlpScope("s", null, registry)], [], OtlpTemporality.Cumulative);
        OtlpExportBatch batch = collector.Collect();
        var splitter = new OtlpRequestSplitter();

        IReadOnlyList<ReadOnlyMemory<byte>> parts = splitter.Split(batch.Body, OtlpRequestSplitter.MinimumMaxBytes);
        IReadOnlyList<ReadOnlyMemory<byte>> asIs = splitter.Split(batch.Body, batch.Body.Length);

        // Each point (over 3 KB: 201 counts and 200 bounds) is a request of its own, over the cap: never cut.
        Assert.Equal(2, parts.Count);
        Assert.All(parts, p => Assert.Single(Metrics(ExportMetricsServiceRequest.Parser.ParseFrom(p.Span), "wide").SelectMany(m => m.Histogram.DataPoints)));
        Assert.All(parts, p => Assert.True(p.Length > OtlpRequestSplitter.MinimumMaxBytes));
        Assert.True(batch.Body.Span.SequenceEqual(Assert.Single(asIs).Span));
    }

    private static void Record(PartitionedHistogram latency, PartitionedCounter requests, int round)
    {
        for (int i = 0; i < HistogramSeries; i++)
        {
            var tag = new KeyValuePair<string, object?>("series", (long)i);
            for (int r = 0; r < round; r++)
            {
                latency.Record((i % Boundaries) * 0.01, tag);
            }

            if (i < CounterSeries)
            {
                requests.Add(round * (i + 1L), tag);
            }
        }
    }

    // Round n records each histogram series n values and adds n × (i + 1) to counter series i: the
    // totals after round 1 are (1, i + 1), after round 2 cumulative (3, 3(i + 1)), delta (2, 2(i + 1)).
    private static void AssertTotals(List<ExportMetricsServiceRequest> requests, int round, int expectedRound)
    {
        int perSeries = expectedRound == 0 ? round * (round + 1) / 2 : expectedRound;
        List<HistogramDataPoint> histogram = [.. requests.SelectMany(r => Metrics(r, "big.latency")).SelectMany(m => m.Histogram.DataPoints)];
        Assert.Equal(HistogramSeries, histogram.Select(p => OtlpDecoded.Attributes(p.Attributes)).Distinct().Count());
        Assert.Equal(HistogramSeries, histogram.Count);
        Assert.All(histogram, p => Assert.Equal((ulong)perSeries, p.Count));
        Assert.Equal((ulong)perSeries * HistogramSeries, (ulong)histogram.Sum(p => (long)p.BucketCounts.Sum(c => (long)c)));
        Assert.All(histogram, p => Assert.Equal(Boundaries, p.ExplicitBounds.Count));

        List<NumberDataPoint> counter = [.. requests.SelectMany(r => Points(r, "big.requests"))];
        Assert.Equal(CounterSeries, counter.Count);
        Assert.Equal(perSeries * (long)CounterSeries * (CounterSeries + 1) / 2, counter.Sum(p => p.AsInt));
        Assert.All(requests.SelectMany(r => r.ResourceMetrics), r => Assert.Equal("big.scope", Assert.Single(r.ScopeMetrics).Scope.Name));
    }

    private static List<ExportMetricsServiceRequest> Decode(IEnumerable<FaultInjectedRequest> requests) =>
        [.. requests.Select(r => ExportMetricsServiceRequest.Parser.ParseFrom(r.Message))];

    private static IEnumerable<Metric> Metrics(ExportMetricsServiceRequest request, string name) =>
        request.ResourceMetrics.SelectMany(r => r.ScopeMetrics).SelectMany(s => s.Metrics).Where(m => m.Name == name);

    private static IEnumerable<NumberDataPoint> Points(ExportMetricsServiceRequest request, string name) =>
        Metrics(request, name).SelectMany(m => m.DataCase == Metric.DataOneofCase.Sum ? m.Sum.DataPoints : []);

    private static void Append(Metric into, Metric from)
    {
        switch (from.DataCase)
        {
            case Metric.DataOneofCase.Sum:
                Assert.Equal(into.Sum.AggregationTemporality, from.Sum.AggregationTemporality);
                Assert.Equal(into.Sum.IsMonotonic, from.Sum.IsMonotonic);
                into.Sum.DataPoints.AddRange(from.Sum.DataPoints);
                break;
            case Metric.DataOneofCase.Histogram:
                Assert.Equal(into.Histogram.AggregationTemporality, from.Histogram.AggregationTemporality);
                into.Histogram.DataPoints.AddRange(from.Histogram.DataPoints);
                break;
            default:
                Assert.Fail("a kind the test does not write: " + from.DataCase);
                break;
        }

        Assert.Equal(into.Unit, from.Unit);
        Assert.Equal(into.Description, from.Description);
    }
}
