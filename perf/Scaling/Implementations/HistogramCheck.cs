using System.Globalization;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// The harness's check of a histogram's total: the count it reads back is the sum of its bucket
/// counts, and the buckets and the sum must hold what <see cref="HistogramValues"/> records.
/// </summary>
internal static class HistogramCheck
{
    /// <summary>Returns the sum of <paramref name="bucketCounts"/>, the total the harness compares
    /// with the records made, after checking that every bucket holds a sixteenth of it and that
    /// <paramref name="sum"/> is the sum of the values recorded.</summary>
    /// <exception cref="InvalidOperationException">The buckets or the sum do not hold what was
    /// recorded: a value went to the wrong bucket or was added to the sum wrongly (the harness
    /// reports it and exits with its failure code).</exception>
    public static long Total(string implementationId, IReadOnlyList<long> bucketCounts, double sum)
    {
        if (bucketCounts.Count != HistogramValues.Count)
        {
            throw new InvalidOperationException($"{implementationId}: read {bucketCounts.Count} buckets, expected {HistogramValues.Count}.");
        }

        long count = 0;
        foreach (long bucketCount in bucketCounts)
        {
            count += bucketCount;
        }

        long perBucket = count / HistogramValues.Count;
        if (count % HistogramValues.Count != 0 || bucketCounts.Any(c => c != perBucket))
        {
            throw new InvalidOperationException($"{implementationId}: bucket counts [{string.Join(", ", bucketCounts)}] are not {HistogramValues.Count} equal parts of {count}.");
        }

        double expectedSum = perBucket * HistogramValues.CycleSum;
        if (sum != expectedSum)
        {
            throw new InvalidOperationException(string.Create(CultureInfo.InvariantCulture, $"{implementationId}: sum {sum:R}, expected {expectedSum:R} for {count} records."));
        }

        return count;
    }
}
