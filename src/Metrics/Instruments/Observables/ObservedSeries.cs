namespace ScalableMetrics.Instruments.Observables;

/// <summary>
/// One series of an <see cref="ObservableInstrument"/>: what its callback reported for these tags
/// in the latest collection. Written and read only under the instrument's collection lock.
/// </summary>
/// <typeparam name="TValue">The callback's value type.</typeparam>
internal sealed class ObservedSeries<TValue> : Series
    where TValue : struct
{
    internal ObservedSeries(TagSet tags)
        : base(tags)
    {
    }

    /// <summary>The collection that last reported this series: it is exported only when that is the latest.</summary>
    public long Round { get; set; }

    /// <summary>The value of <see cref="Round"/>.</summary>
    public TValue Value { get; set; }
}
