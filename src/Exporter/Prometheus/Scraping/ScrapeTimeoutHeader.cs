using System.Globalization;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>Reads the scrape timeout Prometheus sends with every scrape: its <c>scrape_timeout</c>, in seconds.</summary>
internal static class ScrapeTimeoutHeader
{
    /// <summary>The header's name, as Prometheus sends it (<c>scrape/scrape.go</c>, <c>scrapeTimeoutHeader</c>).</summary>
    public const string Name = "X-Prometheus-Scrape-Timeout-Seconds";

    /// <summary>The longest timeout taken from a header or the options: one day, well inside what <c>Task.WaitAsync</c> accepts.</summary>
    public static readonly TimeSpan Longest = TimeSpan.FromDays(1);

    /// <summary>The timeout <paramref name="value"/> says (seconds, a decimal such as <c>10</c> or <c>9.5</c>),
    /// capped at <see cref="Longest"/>; <paramref name="fallback"/> where it is absent, not a number, or not positive.</summary>
    public static TimeSpan Parse(string? value, TimeSpan fallback)
    {
        if (string.IsNullOrWhiteSpace(value)
            || !double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds)
            || !(seconds > 0))
        {
            return fallback;
        }

        return seconds >= Longest.TotalSeconds ? Longest : TimeSpan.FromSeconds(seconds);
    }
}
