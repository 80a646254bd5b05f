using ScalableMetrics.Exporter.Prometheus.Sources;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// The parts of the options' <see cref="ScalableMetricsOptions.GetFeatures"/>, built once for the
/// container (a singleton), in the order the features were turned on, and disposed with it in the
/// reverse order. Resolving it is what builds them: the host does it when it starts, the endpoint
/// when it is mapped, the scraper when it is first resolved.
/// </summary>
internal sealed class ScalableMetricsParts : IDisposable
{
    private readonly IScalableMetricsPart[] _parts;

    public ScalableMetricsParts(IServiceProvider services, IOptions<ScalableMetricsOptions> options)
    {
        var parts = new List<IScalableMetricsPart>();
        try
        {
            foreach (IScalableMetricsFeature feature in options.Value.GetFeatures())
            {
                parts.Add(feature.Build(services));
            }
        }
        catch
        {
            // The container never gets this object, so it would dispose none of those built.
            DisposeAll(parts);
            throw;
        }

        _parts = [.. parts];
    }

    /// <summary>The parts, in the order their features were turned on.</summary>
    public IReadOnlyList<IScalableMetricsPart> Parts => _parts;

    /// <summary>What the parts add to every scrape, in their order.</summary>
    public IEnumerable<IScrapeSource> ScrapeSources => _parts.Select(static part => part.ScrapeSource).OfType<IScrapeSource>();

    public void Dispose() => DisposeAll(_parts);

    private static void DisposeAll(IReadOnlyList<IScalableMetricsPart> parts)
    {
        for (int i = parts.Count - 1; i >= 0; i--)
        {
            parts[i].Dispose();
        }
    }
}
