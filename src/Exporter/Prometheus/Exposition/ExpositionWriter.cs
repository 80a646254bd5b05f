using System.Runtime.InteropServices;
using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Instruments.Histograms;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Writes one exposition format, chosen once (<see cref="ExpositionFormat.CreateWriter(bool)"/>), as prometheus/common's
/// <c>expfmt.NewEncoder(w, format)</c> and client_java's <c>ExpositionFormatWriter</c> choose
/// theirs: a family's header, then its series. One implementation per format:
/// <see cref="TextFormatWriter"/> (text 0.0.4), <see cref="OpenMetricsWriter"/> (OpenMetrics 1.0)
/// and <see cref="ProtobufWriter"/> (delimited <c>MetricFamily</c> messages). Reused from scrape
/// to scrape; not thread-safe.
/// </summary>
/// <remarks>
/// <para>The sources write every family the same way in every format: a counter's or gauge's
/// series through <see cref="WriteSample(string, string, LabelBlock, string?, double, long, Exemplar?)"/>,
/// a histogram's or summary's whole through <see cref="WriteHistogram(string, LabelBlock, IReadOnlyList{double}, IReadOnlyList{long}, double, DateTimeOffset?, IReadOnlyList{Exemplar?}?)"/>,
/// <see cref="WriteExponentialHistogram(string, LabelBlock, ExponentialHistogramPoint, DateTimeOffset?)"/> and <see cref="WriteSummary"/> (in protobuf a series is
/// one <c>Metric</c> message, never sample by sample).</para>
/// <para>What every format shares is here: the label blocks the series come with
/// (<see cref="LabelBlock"/>) and a histogram's cumulative counts. A writer has one code path,
/// the one production runs: that no series repeats one already written under the same name and
/// labels (which Prometheus would store once, keeping the first value) is up to the sources, and
/// the tests check it of the bytes written, through a parser of each format.</para>
/// </remarks>
internal abstract class ExpositionWriter
{
    private readonly List<long> _cumulativeScratch = [];

    /// <summary>The format this writer writes.</summary>
    public abstract PrometheusExpositionFormat Format { get; }

    /// <summary>
    /// The escaping of the names the sources give this writer (<see cref="ExportedFamily.In"/>,
    /// <see cref="LabelBlock.Create(PrometheusTextWriter, ReadOnlySpan{KeyValuePair{string, string}}, IEnumerable{KeyValuePair{string, object?}}, EscapingScheme)"/>):
    /// <see cref="EscapingScheme.Underscores"/>, the default translation's names, unless the scraper
    /// writes a UTF-8 translation and the scrape negotiated another scheme. Set once, when the writer is made.
    /// </summary>
    public EscapingScheme Escaping { get; private set; }

    /// <summary>Whether the UTF-8 names of a scheme other than <see cref="EscapingScheme.Underscores"/> carry the unit and type suffixes
    /// (<c>NoUTF8EscapingWithSuffixes</c>) or not (<c>NoTranslation</c>). Set once, when the writer is made.</summary>
    public bool Utf8WithSuffixes { get; private set; }

    /// <summary>Makes this new writer one of the names of <paramref name="escaping"/> under the UTF-8 translation <paramref name="utf8WithSuffixes"/> says, before its first scrape.</summary>
    /// <returns>This writer.</returns>
    public ExpositionWriter WithNames(EscapingScheme escaping, bool utf8WithSuffixes)
    {
        Escaping = escaping;
        Utf8WithSuffixes = utf8WithSuffixes;
        return this;
    }

    /// <summary>The bytes written since <see cref="Clear()"/>, the family in progress ended first.</summary>
    public ReadOnlySpan<byte> WrittenSpan
    {
        get
        {
            EndFamily();
            return Output.WrittenSpan;
        }
    }

    /// <summary>How many bytes were written since <see cref="Clear()"/>, the family in progress ended first.</summary>
    public int Length => WrittenSpan.Length;

    /// <summary>The names the collection under way was asked for (<c>name[]=</c>), or null for every family:
    /// a source writes a family only where it is included (<see cref="Includes"/>).</summary>
    public ScalableMetrics.Exporter.Prometheus.Scraping.ScrapeNameFilter? NameFilter { get; set; }

    /// <summary>Whether a family writing <paramref name="names"/> (its family and sample names) is in this collection.</summary>
    public bool Includes(IReadOnlyList<string> names) => NameFilter is null || NameFilter.Includes(names);

    /// <summary>Where the format's bytes go.</summary>
    protected PrometheusTextWriter Output { get; } = new();

    /// <summary>Forgets what was written, to write the next scrape.</summary>
    public virtual void Clear() => Output.Clear();

    /// <summary>Forgets what was written, as <see cref="Clear()"/>, and writes next into <paramref name="buffer"/>, which it grows into a new one where it must.</summary>
    /// <param name="buffer">A buffer the caller lends until <see cref="Detach"/>.</param>
    public void Clear(byte[] buffer)
    {
        Clear();
        Output.Clear(buffer);
    }

    /// <summary>
    /// The bytes written since <see cref="Clear()"/> (the family in progress ended first), in the
    /// buffer they were written in, which the caller owns from now on: this writer forgets it, so
    /// a later scrape never writes over a body still being sent.
    /// </summary>
    public ArraySegment<byte> Detach()
    {
        EndFamily();
        return Output.Detach();
    }

    /// <summary>The header of a family: its name, kind, help and unit as the format writes them.</summary>
    /// <param name="family">The family name of the text format 0.0.4 (<see cref="ExportedFamily.TextName"/>): a counter's is its sample name <c>B_total</c>, which OpenMetrics names <c>B</c>.</param>
    /// <param name="kind">The family's kind.</param>
    /// <param name="help">The help text, or null or empty for none.</param>
    /// <param name="unit">The unit as the name's suffix says it (<c>seconds</c>, <c>bytes</c>), or null or empty for none.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="kind"/> is not a kind the format carries.</exception>
    public abstract void WriteHeader(string family, ExportedKind kind, string? help, string? unit = null);

    /// <summary>
    /// The <c>_created</c> sample of one series of a counter, histogram or summary: when the series
    /// started counting. Only OpenMetrics has one (<see cref="OpenMetricsWriter.WriteCreated"/>):
    /// nothing here.
    /// </summary>
    /// <param name="family">The family name as given to <see cref="WriteHeader"/>.</param>
    /// <param name="kind">The family's kind.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="created">When the series started, or null (not known).</param>
    public virtual void WriteCreated(string family, ExportedKind kind, LabelBlock labels, DateTimeOffset? created)
    {
    }

    /// <summary>Ends the exposition: the last family ended, and what the format writes at its end (OpenMetrics' <c># EOF</c>).</summary>
    public virtual void WriteEnd() => EndFamily();

    /// <summary>One sample of integer value: <c>name suffix{labels,extra="bound"} value</c>.</summary>
    /// <param name="name">The family name.</param>
    /// <param name="suffix">Appended to the name (<c>_sum</c>, <c>_count</c>, <c>_bucket</c>), or empty.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="extraLabelName">A label written after the series' (<c>le</c>, <c>quantile</c>), or null for none.</param>
    /// <param name="extraLabelValue">Its value, written as a float.</param>
    /// <param name="value">The sample's value.</param>
    /// <param name="exemplar">A counter's exemplar, or null: written in OpenMetrics and protobuf, not in the text format 0.0.4, which has none.</param>
    /// <exception cref="InvalidOperationException">In protobuf, a sample with a suffix or extra label: a histogram's or summary's, which has its own method.</exception>
    public abstract void WriteSample(string name, string suffix, LabelBlock labels, string? extraLabelName, double extraLabelValue, long value, Exemplar? exemplar = null);

    /// <summary>One sample of floating-point value; see the <see cref="long"/> overload.</summary>
    /// <param name="name">The family name.</param>
    /// <param name="suffix">Appended to the name, or empty.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="extraLabelName">A label written after the series', or null for none.</param>
    /// <param name="extraLabelValue">Its value.</param>
    /// <param name="value">The sample's value.</param>
    /// <param name="exemplar">A counter's exemplar, or null.</param>
    public abstract void WriteSample(string name, string suffix, LabelBlock labels, string? extraLabelName, double extraLabelValue, double value, Exemplar? exemplar = null);

    /// <summary>
    /// One histogram series, as prometheus/common's <c>expfmt</c> writes one: a bucket per boundary
    /// with the cumulative count of the values at most that boundary, the <c>+Inf</c> bucket (every
    /// value), the sum and the count.
    /// </summary>
    /// <remarks><c>_count</c> is the <c>+Inf</c> bucket's count by construction, so the two agree
    /// in every scrape. A cumulative count that would pass <see cref="long.MaxValue"/> stays there,
    /// as the series' saturating cells do.</remarks>
    /// <param name="name">The family name (<c>B</c> of <c>B_bucket</c>).</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="boundaries">The bucket boundaries, increasing.</param>
    /// <param name="bucketCounts">The count of each bucket, not cumulative: one more than <paramref name="boundaries"/>, the last (b[n-1], +∞).</param>
    /// <param name="sum">The sum of the values recorded.</param>
    /// <param name="created">When the series started (OpenMetrics' <c>_created</c>), or null.</param>
    /// <param name="exemplars">The newest exemplar of each bucket, indexed as <paramref name="bucketCounts"/>, or null for none:
    /// written on the bucket's <c>_bucket</c> sample in OpenMetrics, in its <c>Bucket</c> message in protobuf.</param>
    public void WriteHistogram(string name, LabelBlock labels, IReadOnlyList<double> boundaries, IReadOnlyList<long> bucketCounts, double sum, DateTimeOffset? created = null, IReadOnlyList<Exemplar?>? exemplars = null) =>
        WriteHistogram(name, labels, boundaries, AsSpan(bucketCounts), sum, created, exemplars);

    /// <summary>
    /// One histogram series, as <see cref="WriteHistogram(string, LabelBlock, IReadOnlyList{double}, IReadOnlyList{long}, double, DateTimeOffset?, IReadOnlyList{Exemplar?}?)"/>
    /// writes it, its bucket counts a span (of a reader's kept array: <c>PartitionedHistogram.ReadInto</c>).
    /// </summary>
    /// <param name="name">The family name (<c>B</c> of <c>B_bucket</c>).</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="boundaries">The bucket boundaries, increasing.</param>
    /// <param name="bucketCounts">The count of each bucket, not cumulative: one more than <paramref name="boundaries"/>.</param>
    /// <param name="sum">The sum of the values recorded.</param>
    /// <param name="created">When the series started (OpenMetrics' <c>_created</c>), or null.</param>
    /// <param name="exemplars">The newest exemplar of each bucket, indexed as <paramref name="bucketCounts"/>, or null for none.</param>
    public void WriteHistogram(string name, LabelBlock labels, IReadOnlyList<double> boundaries, ReadOnlySpan<long> bucketCounts, double sum, DateTimeOffset? created, IReadOnlyList<Exemplar?>? exemplars = null)
    {
        if (exemplars is null && TryWriteHistogram(name, labels, boundaries, bucketCounts, sum, created))
        {
            return;
        }

        long count = Cumulate(bucketCounts, boundaries.Count);
        WriteCumulativeHistogram(name, labels, boundaries, _cumulativeScratch, count, sum, created, exemplars);
    }

    /// <summary>
    /// Where a format can, writes a series without exemplars straight from its bucket counts,
    /// summing them as it goes, rather than through <see cref="WriteCumulativeHistogram"/> from the
    /// kept cumulative list: the same bytes. The text formats do (<c>LineFormatWriter</c>); by default, none.
    /// </summary>
    /// <returns>Whether the series was written; if not, the caller writes it through <see cref="WriteCumulativeHistogram"/>.</returns>
    protected virtual bool TryWriteHistogram(string name, LabelBlock labels, IReadOnlyList<double> boundaries, ReadOnlySpan<long> bucketCounts, double sum, DateTimeOffset? created) => false;

    /// <summary>
    /// One series of a counter of integer value: its sample, as
    /// <see cref="WriteSample(string, string, LabelBlock, string?, double, long, Exemplar?)"/> writes it
    /// without suffix or extra label, then its <see cref="WriteCreated"/>. The text formats write the line in one piece.
    /// </summary>
    /// <param name="name">The family name (a counter's sample name <c>B_total</c>).</param>
    /// <param name="kind">The family's kind.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="labelText">The labels' text (<see cref="LabelBlock.Utf8"/>), from wherever the caller keeps it.</param>
    /// <param name="value">The sample's value.</param>
    /// <param name="exemplar">The series' exemplar, or null.</param>
    /// <param name="created">When the series started, or null.</param>
    public virtual void WriteCounterSeries(string name, ExportedKind kind, LabelBlock labels, ReadOnlySpan<byte> labelText, long value, Exemplar? exemplar, DateTimeOffset? created)
    {
        WriteSample(name, string.Empty, labels, null, 0, value, exemplar);
        WriteCreated(name, kind, labels, created);
    }

    /// <summary>One exponential histogram series of a reading: its <see cref="ExponentialHistogramReading.Point"/>, written as
    /// <see cref="WriteExponentialHistogram(string, LabelBlock, ExponentialHistogramPoint, DateTimeOffset?)"/> writes it.</summary>
    /// <param name="name">The family name.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="reading">The series' reading.</param>
    /// <param name="created">When the series started (OpenMetrics' <c>_created</c>), or null.</param>
    public void WriteExponentialHistogram(string name, LabelBlock labels, ExponentialHistogramReading reading, DateTimeOffset? created = null) =>
        WriteExponentialHistogram(name, labels, reading.Point, created);

    /// <summary>One exponential histogram series: a native histogram where the format has one, its buckets as a classic histogram's where not.</summary>
    /// <param name="name">The family name.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="point">The series as read: from a reading, or from a reader's kept arrays (<c>PartitionedExponentialHistogram.PointOf</c>).</param>
    /// <param name="created">When the series started (OpenMetrics' <c>_created</c>), or null.</param>
    public abstract void WriteExponentialHistogram(string name, LabelBlock labels, ExponentialHistogramPoint point, DateTimeOffset? created = null);

    /// <summary>One summary series without quantiles: its count and sum (and OpenMetrics' <c>_created</c>).</summary>
    /// <param name="name">The family name.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="count">The series' count.</param>
    /// <param name="sum">The series' sum.</param>
    /// <param name="created">When the series started, or null.</param>
    public abstract void WriteSummary(string name, LabelBlock labels, long count, double sum, DateTimeOffset? created = null);

    /// <summary>Copies families already in the format (a family another writer of the same format wrote): text lines, or delimited protobuf messages.</summary>
    public void WriteRaw(ReadOnlySpan<byte> families)
    {
        EndFamily();
        Output.Write(families);
    }

    /// <summary>A copy of <see cref="WrittenSpan"/>.</summary>
    public byte[] ToArray() => WrittenSpan.ToArray();

    /// <inheritdoc/>
    public override string ToString() => Output.ToString();

    /// <summary>One histogram series of cumulative counts (<see cref="WriteHistogram(string, LabelBlock, IReadOnlyList{double}, IReadOnlyList{long}, double, DateTimeOffset?, IReadOnlyList{Exemplar?}?)"/>).</summary>
    /// <param name="name">The family name.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="boundaries">The finite boundaries, increasing.</param>
    /// <param name="cumulativeCounts">The cumulative count of each boundary's bucket.</param>
    /// <param name="count">The series' count: the <c>+Inf</c> bucket's.</param>
    /// <param name="sum">The series' sum.</param>
    /// <param name="created">When the series started, or null.</param>
    /// <param name="exemplars">Where given, one per bucket (<paramref name="boundaries"/>' count + 1, the last the <c>+Inf</c> bucket's).</param>
    protected abstract void WriteCumulativeHistogram(string name, LabelBlock labels, IReadOnlyList<double> boundaries, IReadOnlyList<long> cumulativeCounts, long count, double sum, DateTimeOffset? created, IReadOnlyList<Exemplar?>? exemplars);

    /// <summary>Ends the family in progress, where the format keeps one back (protobuf writes a family's length before it).</summary>
    protected virtual void EndFamily()
    {
    }

    // The cumulative count of each of the first boundaryCount buckets into the scratch list, and
    // the total (the +Inf bucket's), saturating as the series' cells do.
    private long Cumulate(ReadOnlySpan<long> bucketCounts, int boundaryCount)
    {
        _cumulativeScratch.Clear();
        long cumulative = 0;
        for (int i = 0; i < boundaryCount; i++)
        {
            cumulative = SaturatingCounts.Add(cumulative, bucketCounts[i]);
            _cumulativeScratch.Add(cumulative);
        }

        return SaturatingCounts.Add(cumulative, bucketCounts[boundaryCount]);
    }

    // Readings hold their counts in arrays; any other list is copied once.
    private static ReadOnlySpan<long> AsSpan(IReadOnlyList<long> counts) => counts switch
    {
        long[] array => array,
        List<long> list => CollectionsMarshal.AsSpan(list),
        _ => counts.ToArray(),
    };
}
