using System.Diagnostics;

namespace ScalableMetrics.Tests.Exemplars;

/// <summary>Exemplars off: an add or record allocates nothing. On, with a recorded activity: nothing either, once the partition's slots exist (the warm-up writes them).</summary>
public class ExemplarAllocationTests
{
    private static readonly KeyValuePair<string, object?> s_route = new("http.route", "/hello");

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void OffAnAddOrRecordDoesNotAllocate(string storage)
    {
        using Activity activity = RecordedActivity.Start();
        AssertAddsDoNotAllocate(new MetricRegistry(Storages.Options(storage)));
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void OnASampledAddOrRecordDoesNotAllocateOnceItsPartitionHasSlots(string storage)
    {
        MetricRegistryOptions options = Storages.Options(storage);
        options.ExemplarFilter = ExemplarFilter.TraceBased;
        using Activity activity = RecordedActivity.Start();
        AssertAddsDoNotAllocate(new MetricRegistry(options));
    }

    private static void AssertAddsDoNotAllocate(MetricRegistry registry)
    {
        PartitionedCounter counter = registry.CreateCounter("test.exemplar.alloc");
        CounterSeries bound = counter.Bind(s_route);
        DoubleCounterSeries doubleBound = registry.CreateDoubleCounter("test.exemplar.alloc.double").Bind(s_route);
        PartitionedHistogram histogram = registry.CreateHistogram("test.exemplar.alloc.histogram");
        HistogramSeries histogramBound = histogram.Bind(s_route);

        AllocationAssert.DoesNotAllocate(() => bound.Add(1));
        AllocationAssert.DoesNotAllocate(bound.Increment);
        AllocationAssert.DoesNotAllocate(() => counter.Add(1, s_route));
        AllocationAssert.DoesNotAllocate(() => doubleBound.Add(1.5));
        AllocationAssert.DoesNotAllocate(() => histogramBound.Record(42.0));
        AllocationAssert.DoesNotAllocate(() => histogram.Record(7.0, s_route));
    }
}
