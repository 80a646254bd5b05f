using System.Diagnostics;

namespace ScalableMetrics.Tests.Exemplars;

/// <summary>
/// An exponential histogram keeping exemplars (<see cref="ExemplarFilter.AlwaysOn"/>), written by
/// concurrent writers on every storage and read while they run: its counts, classic counts and
/// sum stay exact, and every exemplar read is whole and one that was recorded.
/// </summary>
public class ExponentialExemplarConcurrencyTests
{
    private const int RecordsPerThread = 20_000;
    private const int ValuesPerThread = 8;

    private static int Threads => Math.Max(4, Environment.ProcessorCount);

    [StorageTheory]
    [MemberData(nameof(Storages.All), MemberType = typeof(Storages))]
    public void CountsStayExactAndEveryExemplarReadIsWholeAndRecorded(string storage)
    {
        MetricRegistryOptions options = Storages.Options(storage);
        options.ExemplarFilter = ExemplarFilter.AlwaysOn;
        var registry = new MetricRegistry(options);
        PartitionedExponentialHistogram histogram = registry.CreateExponentialHistogram("test.exp.concurrent", classicBoundaries: [150, 450]);

        // Thread t's values: t × 100 + 1 … t × 100 + 8, each under an activity whose trace id
        // encodes it, so that a torn exemplar shows.
        Activity[][] activities = [.. Enumerable.Range(0, Threads).Select(t => Enumerable.Range(1, ValuesPerThread).Select(k => RecordedActivity.Carrying(ValueOf(t, k))).ToArray())];
        foreach (Activity activity in activities.SelectMany(a => a))
        {
            activity.Start();
        }

        Activity.Current = null;
        int exemplarsSeen = 0;
        ConcurrentWriters.Run(
            Threads,
            t =>
            {
                ExponentialHistogramSeries bound = histogram.Bind();
                for (int i = 0; i < RecordsPerThread; i++)
                {
                    int k = 1 + (i % ValuesPerThread);
                    Activity.Current = activities[t][k - 1];
                    if ((i & 1) == 0)
                    {
                        bound.Record(ValueOf(t, k));
                    }
                    else
                    {
                        histogram.Record(ValueOf(t, k));
                    }
                }

                Activity.Current = null;

                // Writers can finish before the reader's second pass (its first may come before
                // any record): each stays alive, bounded, until a read has met an exemplar.
                SpinWait.SpinUntil(() => Volatile.Read(ref exemplarsSeen) > 0, TimeSpan.FromSeconds(10));
            },
            whileRunning: () =>
            {
                foreach (ExponentialHistogramReading reading in histogram.Collect())
                {
                    Assert.InRange(reading.Exemplars.Count, 0, 20);
                    foreach (Exemplar exemplar in reading.Exemplars)
                    {
                        Assert.Equal(exemplar.Value, RecordedActivity.ValueOf(exemplar.TraceId));
                        Interlocked.Increment(ref exemplarsSeen);
                    }
                }
            });

        double sum = 0;
        long atOrBelow150 = 0;
        long atOrBelow450 = 0;
        for (int t = 0; t < Threads; t++)
        {
            for (int i = 0; i < RecordsPerThread; i++)
            {
                double value = ValueOf(t, 1 + (i % ValuesPerThread));
                sum += value;
                atOrBelow150 += value <= 150 ? 1 : 0;
                atOrBelow450 += value <= 450 ? 1 : 0;
            }
        }

        ExponentialHistogramReading final = Assert.Single(histogram.Collect());
        Assert.Equal((long)Threads * RecordsPerThread, final.Count);
        Assert.Equal(final.Count, final.ClassicCount);
        Assert.Equal([atOrBelow150, atOrBelow450], final.ClassicCumulativeCounts);
        Assert.Equal(sum, final.Sum);
        Assert.Equal(20, final.Exemplars.Count);
        Assert.True(exemplarsSeen > 0, "No exemplar was read while the writers ran.");
    }

    // Whole numbers up to 100 × threads + 8: every partial sum is exact in a double.
    private static double ValueOf(int thread, int k) => (thread * 100) + k;
}
