using System.Collections;

namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// One series' run of a reader's kept exemplar array, as the list the writers take: one object
/// kept by the source and pointed at each series in turn, where an <see cref="ArraySegment{T}"/>
/// passed as a list would be boxed once per series.
/// </summary>
/// <remarks>Valid until it is pointed elsewhere or the array is read into again. Not thread-safe: a scrape at a time.</remarks>
internal sealed class KeptExemplars : IReadOnlyList<Exemplar?>
{
    private ArraySegment<Exemplar?> _run;

    /// <inheritdoc/>
    public int Count => _run.Count;

    /// <inheritdoc/>
    public Exemplar? this[int index] => _run[index];

    /// <summary>Points the list at <paramref name="run"/>; returns it.</summary>
    public KeptExemplars Of(ArraySegment<Exemplar?> run)
    {
        _run = run;
        return this;
    }

    /// <inheritdoc/>
    public IEnumerator<Exemplar?> GetEnumerator() => ((IEnumerable<Exemplar?>)_run).GetEnumerator();

    /// <inheritdoc/>
    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}
