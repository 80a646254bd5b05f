namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// One histogram series' lines up to their values, rendered once and kept by the text writer
/// for the series' <see cref="LabelBlock"/> between scrapes (<see cref="LabelBlockCache{TValue}"/>): <c>B_bucket{labels,le="…"} </c> for each boundary and
/// <c>+Inf</c>, then <c>B_sum{labels} </c> and <c>B_count{labels} </c>, so that a line is one copy
/// and its value's digits.
/// </summary>
/// <remarks>
/// Immutable once built: a scrape that finds it stale replaces it whole. It is checked against
/// the family name and the boundaries by value on every use, as the label block may be shared by
/// instruments and a boundary list reused: a mismatch rebuilds it, never writes other text.
/// </remarks>
internal sealed class HistogramLineTemplate
{
    /// <summary>How many families' lines are kept per label block (<see cref="Keep"/>).</summary>
    public const int MaxKeptPerBlock = 8;

    private readonly byte[] _text;

    // Where each prefix ends in _text: bucket i at i, +Inf at boundaries, then _sum, then _count.
    private readonly int[] _ends;
    private readonly long[] _boundaryBits;

    /// <summary>Keeps the prefixes rendered in <paramref name="text"/>, ending at <paramref name="ends"/>.</summary>
    /// <param name="name">The family name the prefixes were rendered for.</param>
    /// <param name="boundaries">The boundaries they were rendered for.</param>
    /// <param name="text">The prefixes one after another (taken, not copied).</param>
    /// <param name="ends">Where each ends: one per boundary, then <c>+Inf</c>, <c>_sum</c>, <c>_count</c> (taken, not copied).</param>
    public HistogramLineTemplate(string name, IReadOnlyList<double> boundaries, byte[] text, int[] ends)
    {
        Name = name;
        _boundaryBits = new long[boundaries.Count];
        for (int i = 0; i < _boundaryBits.Length; i++)
        {
            _boundaryBits[i] = BitConverter.DoubleToInt64Bits(boundaries[i]);
        }

        _text = text;
        _ends = ends;
    }

    /// <summary>The family name the lines were rendered for.</summary>
    public string Name { get; }

    /// <summary>The <c>_sum</c> line up to its value.</summary>
    public ReadOnlySpan<byte> Sum => Prefix(_boundaryBits.Length + 1);

    /// <summary>The <c>_count</c> line up to its value.</summary>
    public ReadOnlySpan<byte> Count => Prefix(_boundaryBits.Length + 2);

    /// <summary>Whether the lines were rendered for this family and these boundaries (compared bit by bit).</summary>
    public bool Fits(string name, IReadOnlyList<double> boundaries)
    {
        if (!string.Equals(name, Name, StringComparison.Ordinal) || boundaries.Count != _boundaryBits.Length)
        {
            return false;
        }

        for (int i = 0; i < _boundaryBits.Length; i++)
        {
            if (BitConverter.DoubleToInt64Bits(boundaries[i]) != _boundaryBits[i])
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// The lines of <paramref name="kept"/> (one label block's) that fit <paramref name="name"/> and
    /// <paramref name="boundaries"/>, or null: several families may share a block (the empty tag
    /// set is one object for every instrument of a meter), so each keeps its own.
    /// </summary>
    /// <param name="kept">The lines kept for one label block, or null for none.</param>
    /// <param name="name">The family name.</param>
    /// <param name="boundaries">The family's boundaries.</param>
    public static HistogramLineTemplate? FindIn(HistogramLineTemplate[]? kept, string name, IReadOnlyList<double> boundaries)
    {
        foreach (HistogramLineTemplate lines in kept ?? [])
        {
            if (lines.Fits(name, boundaries))
            {
                return lines;
            }
        }

        return null;
    }

    /// <summary>
    /// <paramref name="kept"/> with <paramref name="lines"/> in place of the lines of the same
    /// family name (its boundaries changed), else of the oldest where <see cref="MaxKeptPerBlock"/> are kept.
    /// </summary>
    /// <param name="kept">The lines kept for one label block, or null for none; not changed.</param>
    /// <param name="lines">The lines to keep.</param>
    public static HistogramLineTemplate[] Keep(HistogramLineTemplate[]? kept, HistogramLineTemplate lines)
    {
        kept ??= [];
        int replaced = Array.FindIndex(kept, k => string.Equals(k.Name, lines.Name, StringComparison.Ordinal));
        if (replaced >= 0)
        {
            HistogramLineTemplate[] next = [.. kept];
            next[replaced] = lines;
            return next;
        }

        return kept.Length < MaxKeptPerBlock ? [.. kept, lines] : [.. kept.AsSpan(1), lines];
    }

    /// <summary>The bucket line at <paramref name="position"/> up to its value: a boundary's, or at the boundaries' count <c>le="+Inf"</c>.</summary>
    public ReadOnlySpan<byte> Bucket(int position) => Prefix(position);

    private ReadOnlySpan<byte> Prefix(int index)
    {
        int start = index == 0 ? 0 : _ends[index - 1];
        return _text.AsSpan(start, _ends[index] - start);
    }
}
