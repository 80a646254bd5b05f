using ScalableMetrics.Exporter.OpenTelemetry;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// Writes what a <c>MeterProvider</c> collects for meters other than the bridge's (e.g. ASP.NET
/// Core's), through the <see cref="PrometheusPullExporter"/> on one of its readers, after the
/// registry's families: the collection's export writes straight into the scrape's writer, in the
/// scrape's format, and a family one of whose names (its family name, a sample name, its
/// <c>_created</c>) the scrape already took, the registry's or another meter's, is left out and
/// logged once, never written beside it; so is a metric of a family written whose series would be
/// the family's series again (a second metric of one meter, <c>jobs.done</c> beside <c>jobs_done</c>)
/// or whose kind is not the family's.
/// </summary>
/// <remarks>Not thread-safe: a scrape at a time (see <c>PrometheusScraper</c>).</remarks>
internal sealed partial class MeterProviderSource(PrometheusPullExporter exporter, ILogger logger) : IScrapeSource
{
    private readonly HashSet<string> _warned = new(StringComparer.Ordinal);

    // Made once: a method group made into a delegate at each scrape would allocate one each time.
    private Action<string>? _warnTaken;

    /// <inheritdoc/>
    public ValueTask WriteAsync(ExpositionWriter output, HashSet<string> takenNames, CancellationToken cancellationToken)
    {
        exporter.WriteCollection(output, takenNames, _warnTaken ??= WarnTaken, cancellationToken);
        return ValueTask.CompletedTask;
    }

    private void WarnTaken(string family)
    {
        if (_warned.Add(family))
        {
            LogFamilyTaken(logger, family);
        }
    }

    [LoggerMessage(EventId = 3, Level = LogLevel.Warning, Message = "The family '{Family}' of the MeterProvider, or a metric of it, is left out of the Prometheus exposition: the scrape already writes a family of that name, or one that takes one of its names (sample names, _created), from the registry or another meter; or a metric of another kind, or another metric of the same meter, is already written under that name.")]
    private static partial void LogFamilyTaken(ILogger logger, string family);
}
