using System.Buffers;
using System.Buffers.Text;
using System.Globalization;
using System.Text;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// A growable UTF-8 buffer with the few writes the text exposition format needs: names as they
/// are, label values and help text escaped, numbers as Go's <c>strconv.FormatFloat(f, 'g', -1, 64)</c> writes them. Reused
/// from scrape to scrape; a scrape's body can be written into a buffer the caller lends
/// (<see cref="Clear(byte[])"/>) and handed back whole (<see cref="Detach"/>), never copied. Not thread-safe.
/// </summary>
internal sealed class PrometheusTextWriter
{
    private const int InitialCapacity = 16 * 1024;

    // The longest long in decimal: a sign and 19 digits.
    private const int MaxLongLength = 20;

    // Label values escape '\', '"' and line feed; help text escapes '\' and line feed only.
    private static readonly SearchValues<char> s_labelValueEscapes = SearchValues.Create("\\\"\n");
    private static readonly SearchValues<char> s_helpEscapes = SearchValues.Create("\\\n");

    private byte[] _buffer = new byte[InitialCapacity];
    private int _length;

    /// <summary>The bytes written since the last <see cref="Clear()"/>.</summary>
    public ReadOnlySpan<byte> WrittenSpan => _buffer.AsSpan(0, _length);

    public void Clear() => _length = 0;

    /// <summary>Starts over in <paramref name="buffer"/>: what is written next goes there, from its start.</summary>
    /// <remarks>The buffer held before is dropped: this writer no longer touches it.</remarks>
    public void Clear(byte[] buffer)
    {
        _buffer = buffer;
        _length = 0;
    }

    /// <summary>
    /// Hands over the buffer and what was written in it, and forgets both: the caller owns the
    /// buffer from now on, and the next write needs a <see cref="Clear(byte[])"/> first or grows a new one.
    /// </summary>
    public ArraySegment<byte> Detach()
    {
        var written = new ArraySegment<byte>(_buffer, 0, _length);
        _buffer = [];
        _length = 0;
        return written;
    }

    /// <summary>Drops what was written after the first <paramref name="length"/> bytes.</summary>
    public void Truncate(int length) => _length = Math.Min(_length, length);

    public override string ToString() => Encoding.UTF8.GetString(WrittenSpan);

    public void Write(byte value)
    {
        GetSpan(1)[0] = value;
        _length++;
    }

    /// <summary>Writes UTF-8 bytes as they are: text already in the format.</summary>
    public void Write(ReadOnlySpan<byte> utf8)
    {
        utf8.CopyTo(GetSpan(utf8.Length));
        _length += utf8.Length;
    }

    /// <summary>Writes <paramref name="text"/> unescaped: for names and fixed syntax.</summary>
    public void Write(string text) => WriteUtf8(text);

    /// <summary>Writes <paramref name="text"/> unescaped: for a part of a name.</summary>
    public void Write(ReadOnlySpan<char> text) => WriteUtf8(text);

    public void WriteLabelValue(string value) => WriteEscaped(value, s_labelValueEscapes);

    public void WriteHelp(string text) => WriteEscaped(text, s_helpEscapes);

    /// <summary>Writes help text as OpenMetrics 1.0 escapes it: as a label value (<c>\\</c>, <c>\"</c>, <c>\n</c>), its ABNF's <c>escaped-string</c>.</summary>
    public void WriteOpenMetricsHelp(string text) => WriteEscaped(text, s_labelValueEscapes);

    /// <summary>
    /// Writes <paramref name="value"/> as client_golang's OpenMetrics encoder does
    /// (<c>writeOpenMetricsFloat</c>): Go's shortest form, with <c>.0</c> after a number that has
    /// neither a point nor an exponent, so that <c>1</c> is <c>1.0</c> as in the specification's
    /// canonical <c>le</c> values; <c>NaN</c>, <c>+Inf</c>, <c>-Inf</c> as they are.
    /// </summary>
    public void WriteOpenMetrics(double value)
    {
        int start = _length;
        Write(value);
        ReadOnlySpan<byte> written = _buffer.AsSpan(start, _length - start);
        if (double.IsFinite(value) && written.IndexOfAny("e."u8) < 0)
        {
            Write(".0"u8);
        }
    }

    /// <summary>Writes seconds since the Unix epoch in plain decimal with milliseconds at most
    /// (<c>1520430000.123</c>, <c>1605281325.0</c>), as the OpenMetrics specification's <c>_created</c> examples do.</summary>
    public void WriteUnixSeconds(DateTimeOffset time)
    {
        double seconds = time.ToUnixTimeMilliseconds() / 1000.0;
        Span<byte> span = GetSpan(32);
        seconds.TryFormat(span, out int written, "0.0##", CultureInfo.InvariantCulture);
        _length += written;
    }

    public void Write(long value)
    {
        Utf8Formatter.TryFormat(value, GetSpan(MaxLongLength), out int written);
        _length += written;
    }

    /// <summary>A line from its kept prefix (<see cref="HistogramLineTemplate"/>): the prefix, the value and the line feed, into one span.</summary>
    /// <param name="prefix">The line up to its value, its space included.</param>
    /// <param name="value">The line's value.</param>
    public void WriteLine(ReadOnlySpan<byte> prefix, long value)
    {
        Span<byte> span = GetSpan(prefix.Length + MaxLongLength + 1);
        prefix.CopyTo(span);
        Utf8Formatter.TryFormat(value, span[prefix.Length..], out int written);
        int at = prefix.Length + written;
        span[at++] = (byte)'\n';
        _length += at;
    }

    /// <summary>
    /// A sample's line in one piece, into one span: <c>name{labels,extraLabel="extraValue"} value</c>
    /// (no braces where there is no label), and its line feed where <paramref name="endLine"/>.
    /// </summary>
    /// <param name="name">The sample name, UTF-8.</param>
    /// <param name="labels">The series' label block, without braces; or empty.</param>
    /// <param name="extraLabel">A label written after the series' (<c>le</c>), or empty for none.</param>
    /// <param name="extraValue">Its value, already formatted.</param>
    /// <param name="value">The sample's value.</param>
    /// <param name="endLine">Whether the line ends here (no exemplar follows).</param>
    public void WriteSample(ReadOnlySpan<byte> name, ReadOnlySpan<byte> labels, ReadOnlySpan<byte> extraLabel, ReadOnlySpan<byte> extraValue, long value, bool endLine)
    {
        Span<byte> span = GetSpan(name.Length + labels.Length + extraLabel.Length + extraValue.Length + MaxLongLength + 8);
        name.CopyTo(span);
        int at = name.Length;
        if (!labels.IsEmpty || !extraLabel.IsEmpty)
        {
            span[at++] = (byte)'{';
            labels.CopyTo(span[at..]);
            at += labels.Length;
            if (!extraLabel.IsEmpty)
            {
                if (!labels.IsEmpty)
                {
                    span[at++] = (byte)',';
                }

                extraLabel.CopyTo(span[at..]);
                at += extraLabel.Length;
                span[at++] = (byte)'=';
                span[at++] = (byte)'"';
                extraValue.CopyTo(span[at..]);
                at += extraValue.Length;
                span[at++] = (byte)'"';
            }

            span[at++] = (byte)'}';
        }

        span[at++] = (byte)' ';
        Utf8Formatter.TryFormat(value, span[at..], out int written);
        at += written;
        if (endLine)
        {
            span[at++] = (byte)'\n';
        }

        _length += at;
    }

    /// <summary>Writes a number (or other formattable value) in the invariant culture.</summary>
    public void Write(IUtf8SpanFormattable value)
    {
        Span<byte> span = GetSpan(64);
        if (value.TryFormat(span, out int written, default, CultureInfo.InvariantCulture))
        {
            _length += written;
        }
        else
        {
            WriteLabelValue(value.ToString() ?? string.Empty);
        }
    }

    /// <summary>Writes <paramref name="value"/> as Prometheus' Go clients do (<see cref="PrometheusFloat"/>):
    /// shortest round-trip digits, and <c>NaN</c>, <c>+Inf</c>, <c>-Inf</c>.</summary>
    public void Write(double value) => _length += PrometheusFloat.Format(value, GetSpan(PrometheusFloat.MaxLength));

    /// <summary>
    /// Writes a metric or label name as text 1.0.0 and OpenMetrics write a name outside the legacy
    /// character set: between double quotes, <c>\\</c>, <c>\"</c> and <c>\n</c> escaped (the escaping-schemes
    /// document's <c>allow-utf-8</c>); a legacy-valid name as it is.
    /// </summary>
    /// <param name="name">The name.</param>
    /// <param name="label">Whether it is a label name (legacy-valid without <c>:</c>).</param>
    public void WriteName(ReadOnlySpan<char> name, bool label = false)
    {
        if (label ? NameEscaping.IsLegacyLabelName(name) : NameEscaping.IsLegacyMetricName(name))
        {
            WriteUtf8(name);
            return;
        }

        Write((byte)'"');
        WriteEscaped(name, s_labelValueEscapes);
        Write((byte)'"');
    }

    private void WriteEscaped(ReadOnlySpan<char> text, SearchValues<char> escapes)
    {
        ReadOnlySpan<char> rest = text;
        int index;
        while ((index = rest.IndexOfAny(escapes)) >= 0)
        {
            WriteUtf8(rest[..index]);
            Write((byte)'\\');
            Write(rest[index] == '\n' ? (byte)'n' : (byte)rest[index]);
            rest = rest[(index + 1)..];
        }

        WriteUtf8(rest);
    }

    private void WriteUtf8(ReadOnlySpan<char> text)
    {
        Span<byte> span = GetSpan(Encoding.UTF8.GetMaxByteCount(text.Length));
        _length += Encoding.UTF8.GetBytes(text, span);
    }

    private Span<byte> GetSpan(int sizeHint)
    {
        if (_buffer.Length - _length < sizeHint)
        {
            Array.Resize(ref _buffer, Math.Max(_buffer.Length * 2, _length + sizeHint));
        }

        return _buffer.AsSpan(_length);
    }
}
