using Microsoft.Extensions.Logging;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// Writes the registries of the meters a <see cref="MeterListenerHost"/> takes
/// (<c>AddMeter</c>), each as a <see cref="RegistrySource"/> with its meter's scope labels, in the
/// order of the meters' names and versions, so that a scrape's families keep their order from
/// scrape to scrape.
/// </summary>
/// <remarks>Not thread-safe: a scrape at a time (see <c>PrometheusScraper</c>).</remarks>
internal sealed class ListenedMetersSource(MeterListenerHost listened, ILogger logger) : IScrapeSource
{
    private readonly Dictionary<ListenedScope, RegistrySource> _sources = [];

    /// <inheritdoc/>
    public ValueTask WriteAsync(ExpositionWriter output, HashSet<string> takenNames, CancellationToken cancellationToken)
    {
        foreach (ListenedScope scope in listened.Scopes.OrderBy(s => s.MeterName, StringComparer.Ordinal).ThenBy(s => s.MeterVersion, StringComparer.Ordinal))
        {
            if (!_sources.TryGetValue(scope, out RegistrySource? source))
            {
                source = new RegistrySource(scope.Registry, scope.MeterName, scope.MeterVersion, logger);
                _sources.Add(scope, source);
            }

            source.Write(output, takenNames);
        }

        return ValueTask.CompletedTask;
    }
}
