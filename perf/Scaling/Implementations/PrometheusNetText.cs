using System.Globalization;
using System.Text.RegularExpressions;
using Prometheus;

namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// Reads a prometheus-net registry back the way Prometheus does, serialized to the text format,
/// for what its API does not give: a histogram's bucket counts.
/// </summary>
internal static partial class PrometheusNetText
{
    /// <summary>The per-bucket counts (not cumulative; the last above every boundary) of the
    /// histogram <paramref name="name"/>, added over all its label sets, from <paramref name="registry"/>'s text exposition.</summary>
    public static IReadOnlyList<long> BucketCounts(CollectorRegistry registry, string name)
    {
        using var stream = new MemoryStream();
        registry.CollectAndExportAsTextAsync(stream).GetAwaiter().GetResult();
        string text = System.Text.Encoding.UTF8.GetString(stream.GetBuffer(), 0, (int)stream.Length);

        // Bucket lines are cumulative, in ascending `le` order within each label set.
        var cumulativeBySeries = new Dictionary<string, List<long>>(StringComparer.Ordinal);
        string prefix = name + "_bucket{";
        foreach (string line in text.Split('\n'))
        {
            if (!line.StartsWith(prefix, StringComparison.Ordinal))
            {
                continue;
            }

            int close = line.LastIndexOf('}');
            string series = LePair().Replace(line[prefix.Length..close], string.Empty);
            if (!cumulativeBySeries.TryGetValue(series, out List<long>? cumulative))
            {
                cumulative = [];
                cumulativeBySeries.Add(series, cumulative);
            }

            cumulative.Add(long.Parse(line.AsSpan(close + 1).Trim(), NumberStyles.Float, CultureInfo.InvariantCulture));
        }

        var counts = new List<long>();
        foreach (List<long> cumulative in cumulativeBySeries.Values)
        {
            for (int bucket = 0; bucket < cumulative.Count; bucket++)
            {
                if (bucket == counts.Count)
                {
                    counts.Add(0);
                }

                counts[bucket] += cumulative[bucket] - (bucket == 0 ? 0 : cumulative[bucket - 1]);
            }
        }

        return counts;
    }

    // The le label and the comma before it, if any: what sets one bucket line of a series apart from the next.
    [GeneratedRegex(",?le=\"[^\"]*\"")]
    private static partial Regex LePair();
}
