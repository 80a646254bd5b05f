using ScalableMetrics.Instruments.ExponentialHistograms;
using ScalableMetrics.Instruments.Histograms;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// What the two text formats (<see cref="TextFormatWriter"/>, <see cref="OpenMetricsWriter"/>)
/// share: a sample is a line, and every sample goes through one primitive,
/// <see cref="WriteSample(string, string, LabelBlock, string?, double, long, Exemplar?)"/>, after
/// prometheus/common's <c>expfmt</c> (<c>writeSample(name, suffix, metric, extraLabel, value)</c>);
/// a histogram is its <c>_bucket</c> samples, then its sum and count.
/// </summary>
/// <remarks>
/// Where the two formats differ, each says so: the header, floating-point numbers, the order of
/// a histogram's <c>_sum</c> and <c>_count</c>, exemplars, <c>_created</c> and the end.
/// </remarks>
internal abstract class LineFormatWriter : ExpositionWriter
{
    // Room for one formatted bucket boundary: PrometheusFloat's longest, and OpenMetrics' ".0".
    private const int BoundaryTextStride = PrometheusFloat.MaxLength + 8;

    private readonly ClassicBuckets _classic = new();
    private readonly SampleNames _names = new();

    // Each histogram series' lines up to their values, in this writer's format.
    private readonly LabelBlockCache<HistogramLineTemplate[]> _histogramLines = new();

    // Each bucket position's boundary as last formatted (its bits, and its text at position ×
    // stride): the series of a histogram share their boundaries, so an le value is formatted
    // once per instrument, not once per series. Checked by value, as the lists may be reused.
    private long[] _boundaryBits = [];
    private byte[] _boundaryTexts = [];
    private int[] _boundaryLengths = [];

    /// <summary>Also starts the next scrape of the histogram lines kept per series.</summary>
    public override void Clear()
    {
        base.Clear();
        _histogramLines.BeginScrape();
    }

    /// <inheritdoc/>
    public override void WriteSample(string name, string suffix, LabelBlock labels, string? extraLabelName, double extraLabelValue, long value, Exemplar? exemplar = null)
    {
        WriteNameAndLabels(name, name.Length, suffix, labels, extraLabelName, extraLabelValue);
        Output.Write(value);
        WriteExemplar(exemplar);
        Output.Write((byte)'\n');
    }

    /// <inheritdoc/>
    public override void WriteSample(string name, string suffix, LabelBlock labels, string? extraLabelName, double extraLabelValue, double value, Exemplar? exemplar = null)
    {
        WriteNameAndLabels(name, name.Length, suffix, labels, extraLabelName, extraLabelValue);
        WriteFloat(value);
        WriteExemplar(exemplar);
        Output.Write((byte)'\n');
    }

    /// <summary>The sample's line in one piece, then OpenMetrics' <c>_created</c>.</summary>
    /// <inheritdoc/>
    public override void WriteCounterSeries(string name, ExportedKind kind, LabelBlock labels, ReadOnlySpan<byte> labelText, long value, Exemplar? exemplar, DateTimeOffset? created)
    {
        ReadOnlySpan<byte> sampleName = _names.Get(name, string.Empty, out bool quoted);
        if (quoted)
        {
            // A UTF-8 name goes inside the braces: the general line.
            WriteSample(name, string.Empty, labels, null, 0, value, exemplar);
            WriteCreated(name, kind, labels, created);
            return;
        }

        Output.WriteSample(sampleName, labelText, default, default, value, endLine: exemplar is null);
        if (exemplar is not null)
        {
            WriteExemplar(exemplar);
            Output.Write((byte)'\n');
        }

        WriteCreated(name, kind, labels, created);
    }

    /// <summary>
    /// The text formats have no native histogram: its classic buckets (<see cref="ClassicBuckets"/>:
    /// the instrument's classic boundaries, else its non-empty exponential buckets), then
    /// <c>le="+Inf"</c>, <c>_sum</c> and <c>_count</c>, so that no text scrape leaves the instrument out.
    /// Without its exemplars: they are a native histogram's, in no bucket of their own (protobuf only).
    /// </summary>
    /// <inheritdoc/>
    public override void WriteExponentialHistogram(string name, LabelBlock labels, ExponentialHistogramPoint point, DateTimeOffset? created = null)
    {
        ClassicBuckets classic = _classic.Of(point);
        WriteCumulativeHistogram(name, labels, classic.Boundaries, classic.CumulativeCounts, classic.Count, point.Sum, created, exemplars: null);
    }

    /// <summary>Its <c>_sum</c> and <c>_count</c> samples (in the format's order, <see cref="WriteCountAndSum(string, LabelBlock, long, double, bool)"/>), then OpenMetrics' <c>_created</c>.</summary>
    /// <inheritdoc/>
    public override void WriteSummary(string name, LabelBlock labels, long count, double sum, DateTimeOffset? created = null)
    {
        WriteCountAndSum(name, labels, count, sum, negativeBuckets: false);
        WriteCreated(name, ExportedKind.Summary, labels, created);
    }

    /// <summary>A <c>_bucket</c> sample per boundary with its <c>le</c>, the <c>le="+Inf"</c> one, <c>_sum</c> and <c>_count</c>, then OpenMetrics' <c>_created</c>.</summary>
    /// <inheritdoc/>
    protected override void WriteCumulativeHistogram(string name, LabelBlock labels, IReadOnlyList<double> boundaries, IReadOnlyList<long> cumulativeCounts, long count, double sum, DateTimeOffset? created, IReadOnlyList<Exemplar?>? exemplars)
    {
        // A bucket's exemplar follows its value: those lines are written whole, not from kept prefixes.
        if (exemplars is not null)
        {
            for (int i = 0; i < boundaries.Count; i++)
            {
                WriteBucket(name, labels, BoundaryText(i, boundaries[i]), cumulativeCounts[i], exemplars[i]);
            }

            WriteBucket(name, labels, "+Inf"u8, count, exemplars[boundaries.Count]);
        }
        else
        {
            // Each line one copy of its kept prefix and its value's digits; the prefixes are
            // rendered again only for a new series, or where the name or boundaries changed.
            HistogramLineTemplate lines = LinesOf(name, labels, boundaries);
            for (int i = 0; i < boundaries.Count; i++)
            {
                Output.WriteLine(lines.Bucket(i), cumulativeCounts[i]);
            }

            Output.WriteLine(lines.Bucket(boundaries.Count), count);
            WriteCountAndSum(lines, count, sum, negativeBuckets: boundaries.Count > 0 && boundaries[0] < 0);
            WriteCreated(name, ExportedKind.Histogram, labels, created);
            return;
        }

        WriteCountAndSum(name, labels, count, sum, negativeBuckets: boundaries.Count > 0 && boundaries[0] < 0);
        WriteCreated(name, ExportedKind.Histogram, labels, created);
    }

    /// <summary>The lines from the series' kept prefixes, the counts summed as they are written.</summary>
    /// <inheritdoc/>
    protected override bool TryWriteHistogram(string name, LabelBlock labels, IReadOnlyList<double> boundaries, ReadOnlySpan<long> bucketCounts, double sum, DateTimeOffset? created)
    {
        HistogramLineTemplate lines = LinesOf(name, labels, boundaries);
        int count = boundaries.Count;
        long cumulative = 0;
        for (int i = 0; i < count; i++)
        {
            cumulative = SaturatingCounts.Add(cumulative, bucketCounts[i]);
            Output.WriteLine(lines.Bucket(i), cumulative);
        }

        cumulative = SaturatingCounts.Add(cumulative, bucketCounts[count]);
        Output.WriteLine(lines.Bucket(count), cumulative);
        WriteCountAndSum(lines, cumulative, sum, negativeBuckets: count > 0 && boundaries[0] < 0);
        WriteCreated(name, ExportedKind.Histogram, labels, created);
        return true;
    }

    /// <summary>The <c>_sum</c> and <c>_count</c> samples of a histogram or summary series, in the format's order.</summary>
    /// <param name="name">The family name.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="count">The series' count.</param>
    /// <param name="sum">The series' sum.</param>
    /// <param name="negativeBuckets">Whether the series is a histogram with a negative boundary.</param>
    protected abstract void WriteCountAndSum(string name, LabelBlock labels, long count, double sum, bool negativeBuckets);

    /// <summary>
    /// The <c>_sum</c> and <c>_count</c> samples from their kept prefixes, in the format's order:
    /// the same bytes as <see cref="WriteCountAndSum(string, LabelBlock, long, double, bool)"/>.
    /// </summary>
    /// <param name="lines">The series' kept lines.</param>
    /// <param name="count">The series' count.</param>
    /// <param name="sum">The series' sum.</param>
    /// <param name="negativeBuckets">Whether the series has a negative boundary.</param>
    protected abstract void WriteCountAndSum(HistogramLineTemplate lines, long count, double sum, bool negativeBuckets);

    /// <summary>A floating-point sample from its kept prefix: the prefix, the number as the format spells it, the line feed.</summary>
    protected void WriteLine(ReadOnlySpan<byte> prefix, double value)
    {
        Output.Write(prefix);
        WriteFloat(value);
        Output.Write((byte)'\n');
    }

    /// <summary>Writes a floating-point number as the format spells it.</summary>
    protected abstract void WriteFloat(double value);

    /// <summary>Writes a counter's or bucket's exemplar after its value, where the format has exemplars: nothing here.</summary>
    protected virtual void WriteExemplar(Exemplar? exemplar)
    {
    }

    /// <summary>Starts a metadata line: <paramref name="keyword"/> (<c># TYPE </c>), the family name and a space.</summary>
    protected void StartMetadataLine(string keyword, ReadOnlySpan<char> family)
    {
        Output.Write(keyword);
        Output.WriteName(family);
        Output.Write((byte)' ');
    }

    /// <summary>
    /// <c>name suffix{labels,extra="value"} </c>: a sample up to its value.
    /// </summary>
    /// <param name="name">The family name, or its first <paramref name="nameLength"/> characters.</param>
    /// <param name="nameLength">How much of <paramref name="name"/> is the sample's name: OpenMetrics' counter family is its sample name less <c>_total</c>.</param>
    /// <param name="suffix">Appended to the name, or empty.</param>
    /// <param name="labels">The series' labels.</param>
    /// <param name="extraLabelName">A label written after the series', or null for none.</param>
    /// <param name="extraLabelValue">Its value.</param>
    protected void WriteNameAndLabels(string name, int nameLength, string suffix, LabelBlock labels, string? extraLabelName, double extraLabelValue)
    {
        ReadOnlySpan<byte> sampleName = _names.Get(name, nameLength, suffix, out bool quoted);
        if (quoted)
        {
            // {"name",labels,extra="value"}: a quoted name is the braces' first item.
            Output.Write((byte)'{');
            Output.Write(sampleName);
            if (!labels.Utf8.IsEmpty || extraLabelName is not null)
            {
                Output.Write((byte)',');
            }
        }
        else
        {
            Output.Write(sampleName);

            // No braces for no labels, as both specifications' examples write such a sample (foo_count 17).
            if (labels.Utf8.IsEmpty && extraLabelName is null)
            {
                Output.Write((byte)' ');
                return;
            }

            Output.Write((byte)'{');
        }

        Output.Write(labels.Utf8);
        if (extraLabelName is not null)
        {
            if (!labels.Utf8.IsEmpty)
            {
                Output.Write((byte)',');
            }

            Output.Write(extraLabelName);
            Output.Write("=\"");
            WriteFloat(extraLabelValue);
            Output.Write((byte)'"');
        }

        Output.Write("} "u8);
    }

    /// <summary>One <c>_bucket</c> sample, its <c>le</c> already formatted: the same line as
    /// <see cref="WriteSample(string, string, LabelBlock, string?, double, long, Exemplar?)"/> with the extra label <c>le</c> writes.</summary>
    private void WriteBucket(string name, LabelBlock labels, ReadOnlySpan<byte> boundary, long count, Exemplar? exemplar)
    {
        WriteBucketStart(name, labels.Utf8);
        Output.Write(boundary);
        Output.Write("\"} "u8);
        Output.Write(count);
        WriteExemplar(exemplar);
        Output.Write((byte)'\n');
    }

    /// <summary>The lines kept for <paramref name="labels"/> that fit <paramref name="name"/> and <paramref name="boundaries"/>, or null: for tests.</summary>
    internal HistogramLineTemplate? KeptHistogramLines(LabelBlock labels, string name, IReadOnlyList<double> boundaries) =>
        HistogramLineTemplate.FindIn(_histogramLines.Peek(labels), name, boundaries);

    /// <summary>The series' kept lines for this format, rendered again where missing or stale.</summary>
    private HistogramLineTemplate LinesOf(string name, LabelBlock labels, IReadOnlyList<double> boundaries)
    {
        ref HistogramLineTemplate[]? kept = ref _histogramLines.Find(labels);
        if (HistogramLineTemplate.FindIn(kept, name, boundaries) is { } found)
        {
            return found;
        }

        // Rendered at the end of the output, as the lines would be, then taken out of it.
        int start = Output.WrittenSpan.Length;
        int[] ends = new int[boundaries.Count + 3];
        ReadOnlySpan<byte> labelText = labels.Utf8;
        for (int i = 0; i <= boundaries.Count; i++)
        {
            // BoundaryText renders at the end of the output too: taken before this line starts.
            ReadOnlySpan<byte> boundary = i < boundaries.Count ? BoundaryText(i, boundaries[i]) : "+Inf"u8;
            WriteBucketStart(name, labelText);
            Output.Write(boundary);
            Output.Write("\"} "u8);
            ends[i] = Output.WrittenSpan.Length - start;
        }

        WriteSeriesPrefix(name, "_sum", labelText);
        ends[boundaries.Count + 1] = Output.WrittenSpan.Length - start;
        WriteSeriesPrefix(name, "_count", labelText);
        ends[boundaries.Count + 2] = Output.WrittenSpan.Length - start;

        byte[] text = Output.WrittenSpan[start..].ToArray();
        Output.Truncate(start);
        HistogramLineTemplate built = new(name, boundaries, text, ends);
        kept = HistogramLineTemplate.Keep(kept, built);
        return built;
    }

    // B_bucket{labels,le=" (or {"B_bucket",labels,le=" for a UTF-8 name): a bucket line up to its boundary.
    private void WriteBucketStart(string name, ReadOnlySpan<byte> labelText)
    {
        ReadOnlySpan<byte> sampleName = _names.Get(name, "_bucket", out bool quoted);
        if (quoted)
        {
            Output.Write((byte)'{');
            Output.Write(sampleName);
            Output.Write((byte)',');
        }
        else
        {
            Output.Write(sampleName);
            Output.Write((byte)'{');
        }

        Output.Write(labelText);
        Output.Write(labelText.IsEmpty ? "le=\""u8 : ",le=\""u8);
    }

    // B_sum{labels} as WriteNameAndLabels writes it: no braces for no labels; {"B_sum",labels} for a UTF-8 name.
    private void WriteSeriesPrefix(string name, string suffix, ReadOnlySpan<byte> labelText)
    {
        ReadOnlySpan<byte> sampleName = _names.Get(name, suffix, out bool quoted);
        if (quoted)
        {
            Output.Write((byte)'{');
            Output.Write(sampleName);
            if (!labelText.IsEmpty)
            {
                Output.Write((byte)',');
                Output.Write(labelText);
            }

            Output.Write((byte)'}');
        }
        else
        {
            Output.Write(sampleName);
            if (!labelText.IsEmpty)
            {
                Output.Write((byte)'{');
                Output.Write(labelText);
                Output.Write((byte)'}');
            }
        }

        Output.Write((byte)' ');
    }

    /// <summary>The text of the boundary at <paramref name="position"/> as the format writes it, formatted again only where it changed.</summary>
    private ReadOnlySpan<byte> BoundaryText(int position, double boundary)
    {
        long bits = BitConverter.DoubleToInt64Bits(boundary);
        if (position >= _boundaryBits.Length)
        {
            int length = Math.Max(position + 1, 2 * _boundaryBits.Length);
            Array.Resize(ref _boundaryBits, length);
            Array.Resize(ref _boundaryLengths, length);
            Array.Resize(ref _boundaryTexts, length * BoundaryTextStride);
        }
        else if (_boundaryLengths[position] > 0 && _boundaryBits[position] == bits)
        {
            return _boundaryTexts.AsSpan(position * BoundaryTextStride, _boundaryLengths[position]);
        }

        // Formatted where the format formats every float, then kept: one spelling of the number.
        int start = Output.WrittenSpan.Length;
        WriteFloat(boundary);
        ReadOnlySpan<byte> text = Output.WrittenSpan[start..];
        text.CopyTo(_boundaryTexts.AsSpan(position * BoundaryTextStride, BoundaryTextStride));
        Output.Truncate(start);
        _boundaryBits[position] = bits;
        _boundaryLengths[position] = text.Length;
        return _boundaryTexts.AsSpan(position * BoundaryTextStride, text.Length);
    }
}
