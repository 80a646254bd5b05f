using System.Diagnostics.Metrics;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Tests;

/// <summary>
/// The "after" code of <c>docs/migrating-from-prometheus-net.md</c>, its statements verbatim (its
/// fields are locals here, without their <c>_</c>), and its table of exported names, so that the
/// guide keeps compiling and saying what the library does.
/// </summary>
public sealed class MigrationGuideExampleTests
{
    [Fact]
    public void CountersAndBoundSeriesCountPerTagSet()
    {
        var registry = new MetricRegistry();
        string paymentMethod = "card";
        string country = "NL";

        PartitionedCounter orders =
            registry.CreateCounter("shop.orders", "{order}", "Orders placed.");

        orders.Add(1, new("payment_method", paymentMethod), new("country", country));
        CounterSeries card = orders.Bind(new("payment_method", "card"), new("country", "NL"));
        card.Increment();

        Assert.Equal(2, Assert.Single(orders.Collect()).Value);
        Assert.Throws<ArgumentOutOfRangeException>(() => orders.Add(-1));
        Assert.Equal(2, card.Read());
    }

    [Fact]
    public void GaugesUpDownCountersAndObservableGaugesReadWhatTheGuideSays()
    {
        var registry = new MetricRegistry();
        var jobs = new Queue<int>([1, 2, 3]);

        UpDownCounterSeries queue = registry.CreateUpDownCounter("jobs.queued", "{job}", "Jobs waiting.").Bind();
        queue.Increment();
        queue.Decrement();
        DoubleGauge temperature = registry.CreateDoubleGauge("room.temperature", "Cel", "Temperature.");
        temperature.Set(21.5);
        UpDownCounterSeries inFlight = registry.CreateUpDownCounter("jobs.in_progress", "{job}", "Jobs running.").Bind();
        inFlight.Increment();
        try { Assert.Equal(1, inFlight.Read()); } finally { inFlight.Decrement(); }

        // The guide offers the observable gauge instead of the up-down counter, under its name;
        // beside it here, it takes another.
        ObservableGauge waiting = registry.CreateObservableGauge("jobs.waiting", () => [new Measurement<long>(jobs.Count)], "{job}");

        Assert.Equal(0, queue.Read());
        Assert.Equal(0, inFlight.Read());
        Assert.Equal(21.5, Assert.Single(temperature.Collect()).Value);
        Assert.Equal(3, Assert.Single(waiting.Collect()).Value);
    }

    [Fact]
    public void HistogramAndOperationDataReplaceHistogramAndSummary()
    {
        var registry = new MetricRegistry();
        double seconds = 0.05;

        PartitionedHistogram latency = registry.CreateHistogram("checkout.duration", "s", "Checkout time.",
            boundaries: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12]);

        latency.Record(seconds, new KeyValuePair<string, object?>("step", "payment"));

        OperationData query = registry.CreateOperationData("db.query.duration", "Query time.",
            boundaries: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1]);

        using (query.Start()) { }

        // 0.05 lies in (0.04, 0.08]: the fourth bucket.
        Assert.Equal(1, Assert.Single(latency.Collect()).BucketCounts[3]);
        Assert.Equal(1, Assert.Single(query.Collect()).Count);
        Assert.Equal(8, query.Boundaries!.Count + 1);
    }

    [Theory]
    [InlineData("shop.orders", "{order}", "Counter", "shop_orders_total")]
    [InlineData("shop_orders_total", null, "Counter", "shop_orders_total")]
    [InlineData("checkout.duration", "s", "Histogram", "checkout_duration_seconds")]
    [InlineData("payload.sent", "By", "Counter", "payload_sent_bytes_total")]
    [InlineData("jobs.queued", "{job}", "Gauge", "jobs_queued")]
    [InlineData("cache.hit_ratio", "1", "Gauge", "cache_hit_ratio")]
    public void TheGuidesNamesTableIsWhatTheNamingLayerExports(string instrument, string? unit, string kind, string expected) =>
        Assert.Equal(expected, ExportedNames.MetricName(instrument, unit, Enum.Parse<ExportedKind>(kind)));

    [Fact]
    public void AKeptPrometheusNetNameAndItsOpenTelemetryFormAreOneExportedName()
    {
        // "a prometheus-net name can be kept as it was, or written the OpenTelemetry way for the
        // same exported name": the two are one name, so the registry takes only one of them.
        var registry = new MetricRegistry();
        registry.CreateCounter("shop.orders", "{order}");

        ArgumentException refused = Assert.Throws<ArgumentException>(() => registry.CreateCounter("shop_orders_total"));
        Assert.Contains("shop.orders", refused.Message, StringComparison.Ordinal);
    }
}
