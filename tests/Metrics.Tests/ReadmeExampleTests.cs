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
}
