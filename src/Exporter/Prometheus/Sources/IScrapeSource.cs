using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// One part of a scrape, which the scraper writes in turn, one after the other: the registry
/// (<see cref="RegistrySource"/>), the listened meters (<see cref="ListenedMetersSource"/>), and
/// the sources other packages add: a <c>MeterProvider</c>'s other meters (ScalableMetrics.OpenTelemetry's
/// <c>MeterProviderSource</c>).
/// </summary>
internal interface IScrapeSource
{
    /// <summary>
    /// Writes the source's families in <paramref name="output"/>'s format, and in no other: a
    /// family whose name (or a sample name) <paramref name="takenNames"/> holds is left out and
    /// logged once, never written twice; the names of each family written are added to it.
    /// </summary>
    /// <param name="output">The scrape's writer.</param>
    /// <param name="takenNames">The names the scrape has written so far.</param>
    /// <param name="cancellationToken">Cancels a source that waits (for a collection).</param>
    /// <exception cref="InvalidOperationException">The source's collection failed.</exception>
    ValueTask WriteAsync(ExpositionWriter output, HashSet<string> takenNames, CancellationToken cancellationToken);
}
