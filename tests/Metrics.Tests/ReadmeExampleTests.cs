namespace ScalableMetrics.Tests;

/// <summary>The README's API example, verbatim, so that it keeps compiling and doing what it says.</summary>
public class ReadmeExampleTests
{
    [Fact]
    public void ReadmeExampleCountsAndTimes()
    {
        var registry = new MetricRegistry(); // per processor; per thread where no processor id can be had

        // A counter, and a series bound once to a fixed tag set: the hot path does no lookup.
        PartitionedCounter requests = registry.CreateCounter("webapi.requests", "{request}", "HTTP requests.");
        CounterSeries helloOk = requests.Bind(
            new KeyValuePair<string, object?>("http.route", "/hello"),
            new KeyValuePair<string, object?>("http.response.status_code", 200));
        helloOk.Increment();

        // Unbound: looks the series up by its tags (no allocation once the series exists).
        requests.Add(1, new KeyValuePair<string, object?>("http.route", "/other"),
                        new KeyValuePair<string, object?>("http.response.status_code", 404));

        // The count and total time of an operation: Stopwatch ticks inside, seconds outside.
        OperationData duration = registry.CreateOperationData("webapi.request.duration");
        using (duration.Start(new KeyValuePair<string, object?>("http.route", "/hello")))
        {
            // ... the operation ...
        }

        // Collection sums every partition; a counter's value never goes down between reads.
        foreach (CounterReading reading in requests.Collect())
        {
            Console.WriteLine($"{reading.Tags} {reading.Value}");
        }

        Assert.Equal([1L, 1L], requests.Collect().Select(r => r.Value));
        Assert.Equal(1, Assert.Single(duration.Collect()).Count);
    }

    [Fact]
    public void ReadmeInstrumentsExampleRecords()
    {
        var registry = new MetricRegistry();

        // A latency histogram: boundaries in the unit, strictly increasing, finite, 1 to 256 of them;
        // without them, OpenTelemetry's default [0, 5, 10, 25, ..., 10000].
        PartitionedHistogram latency = registry.CreateHistogram("webapi.request.duration", "s",
            boundaries: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]);
        latency.Bind(new KeyValuePair<string, object?>("http.route", "/hello")).Record(0.042);

        // In-flight requests: adds of either sign.
        UpDownCounterSeries inFlight = registry.CreateUpDownCounter("webapi.requests.in_flight", "{request}").Bind();
        inFlight.Increment();
        inFlight.Decrement();

        // The same operation timer as above, as a latency histogram (boundaries in seconds).
        OperationData query = registry.CreateOperationData("db.query", boundaries: [0.001, 0.01, 0.1, 1]);

        Assert.Equal(1, Assert.Single(Assert.Single(latency.Collect()).BucketCounts, count => count != 0));
        Assert.Equal(1, Assert.Single(latency.Collect()).BucketCounts[3]);
        Assert.Equal(0, inFlight.Read());
        Assert.Equal(5, query.Boundaries!.Count + 1);
    }
}
