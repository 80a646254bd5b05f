using System.Globalization;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// The harness's check of a tagged workload: the series read back must be the workload's routes,
/// each with its share of the records, and for a histogram the sum of the values that route recorded.
/// </summary>
internal static class TaggedCheck
{
    /// <summary>Returns the total count over <paramref name="series"/>, the total the harness compares
    /// with the records made, after checking every series against what was recorded.</summary>
    /// <exception cref="InvalidOperationException">A series is missing, extra, or holds another count
    /// or sum than its route recorded (the harness reports it and exits with its failure code).</exception>
    public static long Total(string implementationId, TaggedWorkload workload, IReadOnlyCollection<TaggedSeries> series)
    {
        var byKey = new Dictionary<string, TaggedSeries>(StringComparer.Ordinal);
        foreach (TaggedSeries one in series)
        {
            if (!byKey.TryAdd(one.Key, one))
            {
                throw new InvalidOperationException($"{implementationId}: read the series {{{one.Key}}} twice.");
            }
        }

        if (byKey.Count != workload.Routes)
        {
            throw new InvalidOperationException($"{implementationId}: read {byKey.Count} series ({string.Join("; ", byKey.Keys)}), expected {workload.Routes}.");
        }

        long total = series.Sum(static s => s.Count);

        // Every worker records whole passes over the value cycle (HotLoop.AddsPerStopCheck is a multiple of it).
        if (total % RequestDurations.Count != 0)
        {
            throw new InvalidOperationException($"{implementationId}: {total} records are not whole passes over the {RequestDurations.Count} values.");
        }

        long perValue = total / RequestDurations.Count;
        for (int route = 0; route < workload.Routes; route++)
        {
            string key = TaggedSeries.KeyOf(workload.TagKeys, workload.TagValues(route));
            if (!byKey.TryGetValue(key, out TaggedSeries read))
            {
                throw new InvalidOperationException($"{implementationId}: no series {{{key}}}; read {string.Join("; ", byKey.Keys)}.");
            }

            // Value i goes with route i & mask: each route gets Count / Routes of the values, perValue times each.
            long expectedCount = total / workload.Routes;
            double expectedSum = 0;
            for (int value = 0; value < RequestDurations.Count; value++)
            {
                if ((value & workload.RouteMask) == route)
                {
                    expectedSum += RequestDurations.At(value) * perValue;
                }
            }

            if (read.Count != expectedCount)
            {
                throw new InvalidOperationException($"{implementationId}: series {{{key}}} holds {read.Count}, expected {expectedCount} of {total}.");
            }

            if (workload.IsHistogram && read.Sum != expectedSum)
            {
                throw new InvalidOperationException(string.Create(CultureInfo.InvariantCulture, $"{implementationId}: series {{{key}}} has the sum {read.Sum:R}, expected {expectedSum:R}."));
            }
        }

        return total;
    }
}
