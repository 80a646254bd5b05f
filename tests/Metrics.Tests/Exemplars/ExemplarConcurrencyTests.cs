using System.Diagnostics;

namespace ScalableMetrics.Tests.Exemplars;

/// <summary>
/// Exemplars on, concurrent writers on every write path, and reads while they run: every count
/// stays exact, and every exemplar read is whole: its value, trace id and span id were written
/// together (the trace id encodes the value, so a torn read shows).
/// </summary>
public class ExemplarConcurrencyTests
{
    private const int AddsPerThread = 40_000;
    private const int ValuesPerThread = 8;
    private static readonly double[] s_boundaries = [100, 200, 300];

    private static int Threads => Math.Max(4, Environment.ProcessorCount);

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void CountsStayExactAndEveryExemplarReadIsWhole(string storage)
    {
        MetricRegistryOptions options = Storages.Options(storage);
        options.ExemplarFilter = ExemplarFilter.TraceBased;
        var registry = new MetricRegistry(options);
        PartitionedCounter counter = registry.CreateCounter("test.exemplar.concurrent");
        PartitionedDoubleCounter doubleCounter = registry.CreateDoubleCounter("test.exemplar.concurrent.double");
        PartitionedHistogram histogram = registry.CreateHistogram("test.exemplar.concurrent.histogram", boundaries: s_boundaries);

        // Thread t's values: t × 100 + 1 … t × 100 + 8, each with its own activity, so that a
        // value's span id is known too.
        Activity[][] activities = [.. Enumerable.Range(0, Threads).Select(t => Enumerable.Range(1, ValuesPerThread).Select(k => RecordedActivity.Carrying(ValueOf(t, k))).ToArray())];
        var spanByValue = new Dictionary<double, ActivitySpanId>();
        foreach (Activity activity in activities.SelectMany(a => a))
        {
            // Started and never stopped: a stopped activity cannot become Activity.Current.
            activity.Start();
            spanByValue.Add(RecordedActivity.ValueOf(activity.TraceId), activity.SpanId);
        }

        Activity.Current = null;

        int exemplarsSeen = 0;
        ConcurrentWriters.Run(
            Threads,
            t =>
            {
                CounterSeries bound = counter.Bind();
                for (int i = 0; i < AddsPerThread; i++)
                {
                    int k = 1 + (i % ValuesPerThread);
                    Activity.Current = activities[t][k - 1];
                    long value = (long)ValueOf(t, k);
                    if ((i & 1) == 0)
                    {
                        bound.Add(value);
                    }
                    else
                    {
                        counter.Add(value);
                    }

                    doubleCounter.Add(value);
                    histogram.Record(value);
                }

                Activity.Current = null;

                // Writers can finish before the reader's second pass (its first may come before
                // any record): each stays alive, bounded, until a read has met an exemplar.
                SpinWait.SpinUntil(() => Volatile.Read(ref exemplarsSeen) > 0, TimeSpan.FromSeconds(10));
            },
            whileRunning: () =>
            {
                foreach (CounterReading reading in counter.Collect())
                {
                    Interlocked.Add(ref exemplarsSeen, AssertWhole(reading.Exemplar, spanByValue));
                }

                foreach (DoubleReading reading in doubleCounter.Collect())
                {
                    Interlocked.Add(ref exemplarsSeen, AssertWhole(reading.Exemplar, spanByValue));
                }

                foreach (HistogramReading reading in histogram.Collect())
                {
                    for (int bucket = 0; bucket < (reading.Exemplars?.Count ?? 0); bucket++)
                    {
                        Exemplar? exemplar = reading.Exemplars![bucket];
                        Interlocked.Add(ref exemplarsSeen, AssertWhole(exemplar, spanByValue));
                        if (exemplar is { } whole)
                        {
                            Assert.Equal(bucket, BucketOf(whole.Value));
                        }
                    }
                }
            });

        double expected = 0;
        for (int t = 0; t < Threads; t++)
        {
            for (int i = 0; i < AddsPerThread; i++)
            {
                expected += ValueOf(t, 1 + (i % ValuesPerThread));
            }
        }

        Assert.Equal((long)expected, Assert.Single(counter.Collect()).Value);
        Assert.Equal(expected, Assert.Single(doubleCounter.Collect()).Value);
        HistogramReading final = Assert.Single(histogram.Collect());
        Assert.Equal((long)Threads * AddsPerThread, final.Count);
        Assert.Equal(expected, final.Sum);
        Assert.NotNull(Assert.Single(counter.Collect()).Exemplar);
        Assert.True(exemplarsSeen > 0, "No exemplar was read while the writers ran.");
    }

    // Whole numbers up to 100 × threads + 8: every partial sum is exact in a double.
    private static double ValueOf(int thread, int k) => (thread * 100) + k;

    private static int BucketOf(double value) => s_boundaries.Count(b => value > b);

    private static int AssertWhole(Exemplar? exemplar, Dictionary<double, ActivitySpanId> spanByValue)
    {
        if (exemplar is not { } whole)
        {
            return 0;
        }

        Assert.Equal(whole.Value, RecordedActivity.ValueOf(whole.TraceId));
        Assert.Equal(spanByValue[whole.Value], whole.SpanId);
        return 1;
    }
}
