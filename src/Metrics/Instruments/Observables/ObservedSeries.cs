namespace ScalableMetrics.Instruments.Observables;

/// <summary>
/// One series of an <see cref="ObservableInstrument"/>: what its callback reported for these tags
/// in the latest collection. Written and read only under the instrument's collection lock.
/// </summary>
internal sealed class ObservedSeries : Series
{
    internal ObservedSeries(TagSet tags)
        : base(tags)
    {
    }

    /// <summary>The collection that last reported this series: it is exported only when that is the latest.</summary>
    public long Round { get; set; }

    /// <summary>The value of <see cref="Round"/>, for a <see cref="long"/> callback.</summary>
    public long LongValue { get; set; }

    /// <summary>The value of <see cref="Round"/>, for a <see cref="double"/> callback.</summary>
    public double DoubleValue { get; set; }
}
