using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// One exposition format as a scraper serves it: the coalescer its scrapes share (they share a
/// body, never another format's) and its writer, made on its first collection and reused by the
/// next, with the caches it keeps.
/// </summary>
/// <remarks>The writer is used by one collection at a time (the scraper's lock); the coalescer is thread-safe.</remarks>
internal sealed class ScrapedFormat
{
    private readonly Func<ExpositionFormat, ExpositionWriter> _createWriter;
    private ExpositionWriter? _writer;

    /// <summary>Serves <paramref name="format"/>, its collections written by <paramref name="collect"/>.</summary>
    /// <param name="format">The format.</param>
    /// <param name="collect">Writes one collection of this format into the buffer it is given (see <see cref="ScrapeCoalescer(Func{byte[], Task{ArraySegment{byte}}})"/>).</param>
    /// <param name="createWriter">Makes the format's writer, on its first collection (the scraper's settings read then).</param>
    /// <param name="filter">The names its scrapes ask for (<c>name[]=</c>), or null for every family.</param>
    public ScrapedFormat(ExpositionFormat format, Func<ScrapedFormat, byte[], Task<ArraySegment<byte>>> collect, Func<ExpositionFormat, ExpositionWriter> createWriter, ScrapeNameFilter? filter = null)
    {
        Format = format;
        _createWriter = createWriter;
        Filter = filter;
        Coalescer = new ScrapeCoalescer(buffer => collect(this, buffer));
    }

    /// <summary>The format.</summary>
    public ExpositionFormat Format { get; }

    /// <summary>The names its scrapes ask for, or null for every family: a filter is a format of its own, coalesced apart.</summary>
    public ScrapeNameFilter? Filter { get; }

    /// <summary>The coalescer of the format's collections.</summary>
    public ScrapeCoalescer Coalescer { get; }

    /// <summary>The format's writer, made on first use.</summary>
    public ExpositionWriter Writer => _writer ??= _createWriter(Format);
}
