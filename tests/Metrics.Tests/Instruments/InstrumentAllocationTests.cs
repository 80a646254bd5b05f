namespace ScalableMetrics.Tests.Instruments;

/// <summary>Zero allocation per record of every new instrument, bound or unbound with an existing series, on every write path.</summary>
public class InstrumentAllocationTests
{
    private static readonly KeyValuePair<string, object?> s_route = new("http.route", "/hello");
    private static readonly KeyValuePair<string, object?> s_status = new("http.response.status_code", 200);
    private static readonly KeyValuePair<string, object?> s_method = new("http.request.method", "GET");

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void HistogramRecordsDoNotAllocate(string storage)
    {
        // Past the binary-search switch too.
        foreach (IReadOnlyList<double>? boundaries in new[] { null, Enumerable.Range(0, 100).Select(i => (double)i).ToArray() })
        {
            PartitionedHistogram histogram = new MetricRegistry(Storages.Options(storage)).CreateHistogram("test.alloc.histogram", boundaries: boundaries);
            HistogramSeries series = histogram.Bind(s_route);
            double value = 0;
            AllocationAssert.DoesNotAllocate(() => series.Record(value += 3.5));
            AllocationAssert.DoesNotAllocate(() => series.Record(42L));
            AllocationAssert.DoesNotAllocate(() => histogram.Record(7.25));
            AllocationAssert.DoesNotAllocate(() => histogram.Record(7L, s_route));
            AllocationAssert.DoesNotAllocate(() => histogram.Record(7.25, s_status, s_method, s_route));
            Assert.Equal(3, histogram.SeriesCount);
        }
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void UpDownAndDoubleCounterAddsDoNotAllocate(string storage)
    {
        var registry = new MetricRegistry(Storages.Options(storage));
        PartitionedUpDownCounter upDown = registry.CreateUpDownCounter("test.alloc.updown");
        UpDownCounterSeries upDownSeries = upDown.Bind(s_route);
        AllocationAssert.DoesNotAllocate(() => upDownSeries.Add(-3));
        AllocationAssert.DoesNotAllocate(upDownSeries.Increment);
        AllocationAssert.DoesNotAllocate(upDownSeries.Decrement);
        AllocationAssert.DoesNotAllocate(() => upDown.Add(-1));
        AllocationAssert.DoesNotAllocate(() => upDown.Add(2, s_status, s_method, s_route));

        PartitionedDoubleUpDownCounter doubleUpDown = registry.CreateDoubleUpDownCounter("test.alloc.double.updown");
        DoubleUpDownCounterSeries doubleUpDownSeries = doubleUpDown.Bind(s_route);
        AllocationAssert.DoesNotAllocate(() => doubleUpDownSeries.Add(-0.5));
        AllocationAssert.DoesNotAllocate(() => doubleUpDown.Add(0.5, s_route));

        PartitionedDoubleCounter doubleCounter = registry.CreateDoubleCounter("test.alloc.double");
        DoubleCounterSeries doubleSeries = doubleCounter.Bind(s_route);
        AllocationAssert.DoesNotAllocate(() => doubleSeries.Add(0.5));
        AllocationAssert.DoesNotAllocate(() => doubleCounter.Add(0.5));
        AllocationAssert.DoesNotAllocate(() => doubleCounter.Add(0.5, s_status, s_method, s_route));
    }

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void OperationWithBucketsDoesNotAllocate(string storage)
    {
        OperationData operation = new MetricRegistry(Storages.Options(storage)).CreateOperationData("test.alloc.operation", boundaries: [0.001, 0.01, 0.1, 1]);
        OperationSeries series = operation.Bind(s_route);
        AllocationAssert.DoesNotAllocate(() =>
        {
            using (series.Start())
            {
            }
        });
        AllocationAssert.DoesNotAllocate(() => series.RecordElapsedTicks(12_345));
        AllocationAssert.DoesNotAllocate(() => operation.Record(TimeSpan.FromMilliseconds(5), s_route, s_status));
    }
}
