using System.Text;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// The UTF-8 of the sample names a writer wrote last (<c>name</c> followed by <c>suffix</c>:
/// <c>B_bucket</c>, <c>B_sum</c>), found by the references of the two strings: a family's
/// samples come one after the other under the same few name instances, so each line's name is
/// copied, not transcoded from UTF-16 again.
/// </summary>
/// <remarks>A few entries, replaced in turn, each keeping its buffer for the next name it holds:
/// nothing is allocated once the longest name has been seen. A name outside the legacy character
/// set (only a scrape that allows UTF-8 names gets one) is kept quoted, as the text formats write it
/// inside the braces (<c>{"http.server.request.duration_seconds_bucket",le="0.1"}</c>), and said so
/// (<see cref="Get(string, int, string, out bool)"/>). Not thread-safe: a writer's.</remarks>
internal sealed class SampleNames
{
    // A histogram family writes three names (_bucket, _sum, _count), OpenMetrics a fourth (_created).
    private const int Entries = 8;

    private readonly string?[] _names = new string?[Entries];
    private readonly int[] _nameLengths = new int[Entries];
    private readonly string?[] _suffixes = new string?[Entries];
    private readonly byte[][] _utf8 = new byte[Entries][];
    private readonly int[] _lengths = new int[Entries];
    private readonly bool[] _quoted = new bool[Entries];

    // Where a quoted name is rendered before it is kept.
    private readonly PrometheusTextWriter _scratch = new();
    private int _next;

    /// <summary>Creates an empty cache.</summary>
    public SampleNames()
    {
        for (int i = 0; i < Entries; i++)
        {
            _utf8[i] = [];
        }
    }

    /// <summary>The UTF-8 of <paramref name="name"/> then <paramref name="suffix"/>, quoted where not legacy-valid (<paramref name="quoted"/>).</summary>
    public ReadOnlySpan<byte> Get(string name, string suffix, out bool quoted) => Get(name, name.Length, suffix, out quoted);

    /// <summary>The UTF-8 of the first <paramref name="nameLength"/> characters of <paramref name="name"/> (OpenMetrics' family name of
    /// a counter, its sample name less <c>_total</c>), then <paramref name="suffix"/>; between double quotes, escaped, where the
    /// two are not a legacy-valid name, which <paramref name="quoted"/> says.</summary>
    public ReadOnlySpan<byte> Get(string name, int nameLength, string suffix, out bool quoted)
    {
        for (int i = 0; i < Entries; i++)
        {
            if (ReferenceEquals(_names[i], name) && ReferenceEquals(_suffixes[i], suffix) && _nameLengths[i] == nameLength)
            {
                quoted = _quoted[i];
                return _utf8[i].AsSpan(0, _lengths[i]);
            }
        }

        return Add(name, nameLength, suffix, out quoted);
    }

    private ReadOnlySpan<byte> Add(string name, int nameLength, string suffix, out bool quoted)
    {
        int entry = _next;
        _next = (_next + 1) % Entries;
        ReadOnlySpan<char> namePart = name.AsSpan(0, nameLength);
        System.Diagnostics.Debug.Assert(suffix.Length == 0 || NameEscaping.IsLegacyMetricName(suffix), "the sample suffixes are legacy-valid");
        quoted = !NameEscaping.IsLegacyMetricName(namePart);
        int written;
        if (quoted)
        {
            _scratch.Clear();
            _scratch.WriteName(string.Concat(namePart, suffix));
            written = _scratch.WrittenSpan.Length;
            if (_utf8[entry].Length < written)
            {
                _utf8[entry] = new byte[Math.Max(written, 64)];
            }

            _scratch.WrittenSpan.CopyTo(_utf8[entry]);
        }
        else
        {
            int length = Encoding.UTF8.GetByteCount(namePart) + Encoding.UTF8.GetByteCount(suffix);
            if (_utf8[entry].Length < length)
            {
                _utf8[entry] = new byte[Math.Max(length, 64)];
            }

            written = Encoding.UTF8.GetBytes(namePart, _utf8[entry]);
            written += Encoding.UTF8.GetBytes(suffix, _utf8[entry].AsSpan(written));
        }

        _names[entry] = name;
        _nameLengths[entry] = nameLength;
        _suffixes[entry] = suffix;
        _lengths[entry] = written;
        _quoted[entry] = quoted;
        return _utf8[entry].AsSpan(0, written);
    }
}
