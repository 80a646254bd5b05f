using System.Collections.Concurrent;
using System.Runtime.CompilerServices;

namespace ScalableMetrics;

/// <summary>
/// An instrument's series, looked up by tags. A lookup of an existing series allocates nothing:
/// the caller's tags are hashed and compared in place (<see cref="TagSetComparer"/>). Past
/// <see cref="MaxSeries"/> series, new tag sets go to one overflow series tagged
/// <c>otel.metric.overflow=true</c>, as OpenTelemetry's cardinality limit does.
/// </summary>
/// <typeparam name="TSeries">The instrument's bound series type.</typeparam>
internal sealed class SeriesTable<TSeries>
    where TSeries : class
{
    private static readonly TagSet s_overflowTags = TagSet.Create(new KeyValuePair<string, object?>("otel.metric.overflow", true));

    private readonly ConcurrentDictionary<TagSet, TSeries> _series = new(TagSetComparer.Instance);
    private readonly ConcurrentDictionary<TagSet, TSeries>.AlternateLookup<ReadOnlySpan<KeyValuePair<string, object?>>> _lookup;
    private readonly Func<TagSet, TSeries> _createSeries;
    private TSeries? _untagged;

    public SeriesTable(int maxSeries, Func<TagSet, TSeries> createSeries)
    {
        MaxSeries = maxSeries;
        _createSeries = createSeries;
        _lookup = _series.GetAlternateLookup<ReadOnlySpan<KeyValuePair<string, object?>>>();
    }

    /// <summary>The most series this table creates before it sends new tag sets to the overflow series.</summary>
    public int MaxSeries { get; }

    public int Count => _series.Count;

    public ICollection<TSeries> Series => _series.Values;

    /// <summary>The series for <paramref name="tags"/>, created on first use.</summary>
    /// <exception cref="ArgumentException">The tags break the rules of <see cref="TagSet.Create"/>.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public TSeries GetOrAdd(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (tags.IsEmpty)
        {
            return _untagged ?? GetOrAddUntagged();
        }

        return _lookup.TryGetValue(tags, out TSeries? found) ? found : Add(tags);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private TSeries GetOrAddUntagged() => _untagged = GetOrAdd(TagSet.Empty);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private TSeries Add(ReadOnlySpan<KeyValuePair<string, object?>> tags) => GetOrAdd(TagSet.Create(tags));

    private TSeries GetOrAdd(TagSet tags)
    {
        if (_series.TryGetValue(tags, out TSeries? found))
        {
            return found;
        }

        if (_series.Count >= MaxSeries)
        {
            return _series.GetOrAdd(s_overflowTags, _createSeries);
        }

        return _series.GetOrAdd(tags, _createSeries);
    }
}
