namespace ScalableMetrics;

/// <summary>
/// One series of an instrument: the tags that name it. Partitioned instruments' series derive
/// from <see cref="PartitionedSeries"/>; a gauge's series keeps one cell (<c>GaugeSeries</c>).
/// </summary>
/// <remarks>Thread-safe. Series are created by their instrument, never by the caller.</remarks>
public abstract class Series
{
    private protected Series(TagSet tags)
    {
        Tags = tags;
    }

    /// <summary>The tags that name this series.</summary>
    public TagSet Tags { get; }

    /// <summary>
    /// Its place in its instrument's series, in creation order (<c>SeriesTable</c>): set once,
    /// before the series is published, so that a thread's recent tag sets
    /// (<see cref="Tags.RecentTagSets"/>) name it by number and keep no series alive.
    /// </summary>
    internal int Index { get; set; }
}
