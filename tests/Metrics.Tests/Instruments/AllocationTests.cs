namespace ScalableMetrics.Tests.Instruments;

/// <summary>Zero allocation on the hot path, on every write path (<see cref="AllocationAssert"/>).</summary>
public class AllocationTests
{
    private static readonly KeyValuePair<string, object?> s_route = new("http.route", "/hello");
    private static readonly KeyValuePair<string, object?> s_status = new("http.response.status_code", 200);
    private static readonly KeyValuePair<string, object?> s_method = new("http.request.method", "GET");

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void BoundAddDoesNotAllocate(string storage)
    {
        CounterSeries series = new MetricRegistry(Storages.Options(storage)).CreateCounter("test.alloc").Bind(s_route);
        AllocationAssert.DoesNotAllocate(() => series.Add(1));
        AllocationAssert.DoesNotAllocate(series.Increment);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void UnboundAddWithZeroOneAndThreeTagsDoesNotAllocate(string storage)
    {
        PartitionedCounter counter = new MetricRegistry(Storages.Options(storage)).CreateCounter("test.alloc");
        AllocationAssert.DoesNotAllocate(() => counter.Add(1));
        AllocationAssert.DoesNotAllocate(() => counter.Add(1, s_route));
        AllocationAssert.DoesNotAllocate(() => counter.Add(1, s_status, s_method, s_route));
        Assert.Equal(3, counter.SeriesCount);
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void OperationScopeDoesNotAllocate(string storage)
    {
        OperationData operation = new MetricRegistry(Storages.Options(storage)).CreateOperationData("test.alloc.scope");
        OperationSeries series = operation.Bind(s_route);
        AllocationAssert.DoesNotAllocate(() =>
        {
            using (series.Start())
            {
            }
        });
        AllocationAssert.DoesNotAllocate(() =>
        {
            using (operation.Start(s_route, s_status))
            {
            }
        });
    }
}
