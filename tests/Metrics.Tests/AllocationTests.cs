namespace ScalableMetrics.Tests;

/// <summary>Zero allocation on the hot path, asserted after ZeroLog's GcTester: measure the thread's allocated bytes around the call, after a warm-up.</summary>
public class AllocationTests
{
    private static readonly KeyValuePair<string, object?> s_route = new("http.route", "/hello");
    private static readonly KeyValuePair<string, object?> s_status = new("http.response.status_code", 200);
    private static readonly KeyValuePair<string, object?> s_method = new("http.request.method", "GET");


    [Theory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void BoundAddDoesNotAllocate(string storage)
    {
        CounterSeries series = new MetricRegistry(Storages.Options(storage)).CreateCounter("test.alloc").Bind(s_route);
        AssertDoesNotAllocate(() => series.Add(1));
        AssertDoesNotAllocate(series.Increment);
    }

    [Theory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void UnboundAddWithZeroOneAndThreeTagsDoesNotAllocate(string storage)
    {
        PartitionedCounter counter = new MetricRegistry(Storages.Options(storage)).CreateCounter("test.alloc");
        AssertDoesNotAllocate(() => counter.Add(1));
        AssertDoesNotAllocate(() => counter.Add(1, s_route));
        AssertDoesNotAllocate(() => counter.Add(1, s_status, s_method, s_route));
        Assert.Equal(3, counter.SeriesCount);
    }

    [Theory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void OperationScopeDoesNotAllocate(string storage)
    {
        OperationData operation = new MetricRegistry(Storages.Options(storage)).CreateOperationData("test.alloc.scope");
        OperationSeries series = operation.Bind(s_route);
        AssertDoesNotAllocate(() =>
        {
            using (series.Start())
            {
            }
        });
        AssertDoesNotAllocate(() =>
        {
            using (operation.Start(s_route, s_status))
            {
            }
        });
    }

    private static void AssertDoesNotAllocate(Action action)
    {
        // Warm up: create the series and the thread's cell, and let tiered compilation settle.
        for (int i = 0; i < 1_000; i++)
        {
            action();
        }

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 10_000; i++)
        {
            action();
        }

        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(0, allocated);
    }
}
