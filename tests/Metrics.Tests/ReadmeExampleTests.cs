namespace ScalableMetrics.Tests;

/// <summary>The README's API example, verbatim, so that it keeps compiling and doing what it says.</summary>
public class ReadmeExampleTests
{
    private static readonly object s_notFound = 404;

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

        // Each add read back in its own series.
        KeyValuePair<string, object?> otherRoute = new("http.route", "/other");
        KeyValuePair<string, object?> notFound = new("http.response.status_code", s_notFound);
        Assert.Equal(1, helloOk.Read());
        Assert.Equal(1, requests.Bind(otherRoute, notFound).Read());

        // "No allocation once the series exists": the unbound add again, measured. Its status
        // code is boxed once, as a real caller's constant is (the example's literal 404 boxes at
        // every call, an allocation of the caller's that no registry could avoid).
        long adds = 0;
        AllocationAssert.DoesNotAllocate(() =>
        {
            requests.Add(1, otherRoute, notFound);
            adds++;
        });
        Assert.Equal(1 + adds, requests.Bind(otherRoute, notFound).Read());
        Assert.Equal(1, helloOk.Read());
        Assert.Equal(2, requests.SeriesCount);
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
