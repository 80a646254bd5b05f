using System.Runtime.CompilerServices;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// The failures of observable instruments' collections as the exporters meet them, one instrument
/// at a time: the scrape (<c>RegistrySource</c>, event 4) and the OTLP export
/// (<c>OtlpInstrumentEncoder</c>, event 20) leave out an instrument whose callback fails, at every
/// collection it fails in. Each cause of each instrument (what its callback threw, the exception's
/// type and message, an <see cref="AggregateException"/> flattened, as <see cref="CallbackFailureLog"/>
/// tells causes apart) is logged the first time it is seen, so that a callback that throws at every
/// collection is logged once, not at every scrape or export; another cause, or the same cause of
/// another instrument, is logged too.
/// </summary>
/// <remarks>Bounded as <see cref="CallbackFailureLog"/> is, per instrument (an instrument's causes
/// go with it: a weak table), and the instruments a registry holds are bounded. Thread-safe (as
/// <see cref="CallbackFailureLog"/> is), though its users log one collection at a time.</remarks>
/// <param name="log">Logs one cause of an instrument's failure, with its exception.</param>
internal sealed class ObservableFailureLog(Action<Instrument, Exception> log)
{
    private readonly ConditionalWeakTable<Instrument, CallbackFailureLog> _causes = [];

    /// <summary>Logs the cause of <paramref name="failure"/> (what the collection of
    /// <paramref name="instrument"/> threw: an <see cref="InvalidOperationException"/> around what
    /// its callback threw) where this instrument's failures have not shown it before.</summary>
    /// <param name="instrument">The instrument whose collection failed.</param>
    /// <param name="failure">What its collection threw.</param>
    public void Log(Instrument instrument, Exception failure)
    {
        _causes.GetValue(instrument, i => new CallbackFailureLog(cause => log(i, cause))).Log(failure.InnerException ?? failure);
    }
}
