using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Exporter.OpenTelemetry;

/// <summary>
/// What <see cref="MeterBridge"/> reports for one monotonic counter of the registry (a counter's,
/// a <see cref="double"/> counter's, an <see cref="OperationData"/>'s count and total time), so that
/// its observable counter never goes down across a removal: each series' total, plus the final
/// totals of the removed series of its tags that the same OpenTelemetry point carried before it.
/// </summary>
/// <remarks>
/// <para>An observable counter reports totals, from which OpenTelemetry makes its deltas (this total
/// less the one its point held) or which it passes on (cumulative). A series made after a removal
/// of its tags counts from zero (docs/series-lifecycle.md), so reporting its own total made the
/// point go down: a negative delta, and the removed series' count lost to a delta backend. The new
/// series' total is instead reported on top of what the removed series of its tags last reported:
/// the point goes on from where it was, each value recorded counted once.</para>
/// <para>Continued only while OpenTelemetry holds the point: a read that reports a tag set no more
/// (its series removed, none made since) drops what is kept for it, as OpenTelemetry reclaims a
/// delta point that a collection did not update; a series of those tags made later is a new point
/// and starts from its own total. So the totals kept are those of the tag sets the last read
/// reported: at most the instrument's series limit, plus its overflow series, as many as
/// OpenTelemetry's cardinality limit holds points for (<see cref="OpenTelemetryLimits"/>).</para>
/// <para>What goes on is the total the bridge last read of the removed series: where another reader
/// (the scrape) made the collection that removed it, what was recorded after the bridge's last read
/// of it does not cross, as docs/series-lifecycle.md says of readers that collect apart. A removed
/// series is held until the bridge's next read, which finds it gone, as an exporter's cache holds
/// it until its next collection; one this read removed is held no longer.</para>
/// <para>Thread-safe: the reads of one instrument take turns, so the totals it reports never go down.</para>
/// </remarks>
/// <typeparam name="T">A series' totals: a <see cref="long"/>, a <see cref="double"/>, an operation's two.</typeparam>
/// <param name="instrument">A registry instrument of monotonic totals.</param>
/// <param name="totalAt">The totals of series i of a snapshot of it, never lower than at the read before.</param>
/// <param name="add">The sum of two totals, never lower than either.</param>
internal sealed class CounterTotals<T>(Instrument instrument, Func<InstrumentSnapshot, int, T> totalAt, Func<T, T, T> add)
    where T : struct
{
    private readonly Lock _lock = new();

    // The tag sets the last read reported, each with what continues its point.
    private readonly Dictionary<TagSet, Point> _points = [];

    // The number of the read under way (under _lock): a point it did not report is dropped after it.
    private long _read;

    /// <summary>Reads the instrument (one collection of it) and makes a reading of each series: its
    /// totals and what its point carries from the removed series of its tags, with the series' tags.</summary>
    /// <typeparam name="TReading">What is made of a series' totals and tags.</typeparam>
    /// <param name="toReading">The reading of a series' totals, as reported, and its tags.</param>
    /// <returns>One reading per series, in the read's order.</returns>
    public TReading[] Read<TReading>(Func<T, TagSet, TReading> toReading)
    {
        lock (_lock)
        {
            _read++;
            TReading[] readings = SnapshotReadings.Of(instrument, (snapshot, i) => toReading(Continue(snapshot, i), snapshot.TagsAt(i)));

            // A tag set has one series in a read, so each reported has one point: any more are those
            // of tag sets this read did not report, whose points OpenTelemetry holds no more.
            if (_points.Count > readings.Length)
            {
                foreach ((TagSet tags, Point point) in _points)
                {
                    if (point.Read != _read)
                    {
                        _points.Remove(tags);
                    }
                }
            }

            return readings;
        }
    }

    // Under _lock, within the read: series i's totals as reported, its point moved on.
    private T Continue(InstrumentSnapshot snapshot, int i)
    {
        var series = (Series)snapshot.KeyAt(i);
        TagSet tags = snapshot.TagsAt(i);
        T total = totalAt(snapshot, i);
        if (!_points.TryGetValue(tags, out Point? point))
        {
            point = new Point { Series = series };
            _points.Add(tags, point);
        }
        else if (!ReferenceEquals(point.Series, series))
        {
            // A new series of a removed one's tags: the removed one's last total stays in the point.
            point.Carried = add(point.Carried, point.Total);
            point.Series = series;
        }

        point.Total = total;
        point.Read = _read;
        T reported = add(point.Carried, total);
        if (series.IsRemoved)
        {
            // This read was its last export (it unlinked it): its total stays in the point, which
            // holds the series no longer, for a series of its tags that a later read may find.
            point.Carried = reported;
            point.Total = default;
            point.Series = null;
        }

        return reported;
    }

    // One tag set's point: its series at the last read (null once that read removed it), that
    // series' totals then, and the final totals of the removed series of its tags before it.
    private sealed class Point
    {
        public Series? Series { get; set; }

        public T Total { get; set; }

        public T Carried { get; set; }

        public long Read { get; set; }
    }
}
