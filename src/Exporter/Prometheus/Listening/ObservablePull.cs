using System.Diagnostics.Metrics;
using Microsoft.Extensions.Diagnostics.Metrics;
using Microsoft.Extensions.Logging;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// Reads the observable instruments that .NET's metrics rules enabled for the
/// <c>ScalableMetricsListener</c> through the source <c>IMetricsListener.Initialize</c>
/// hands it, as the interface's contract has it: <see cref="IObservableInstrumentsSource.RecordObservableInstruments"/>
/// runs every such callback at once, each report arriving at its group's <see cref="ListenedObservable"/>.
/// </summary>
/// <remarks>
/// <para>The registry collects its observable instruments one by one. So that one scrape runs each
/// callback once, not once per instrument, a pull serves every group once: a group that took the
/// last pull's reports already starts a new pull; one that has not takes them (the first group a
/// scrape collects pulls, the others take). A group's reports are never older than its previous
/// observation.</para>
/// <para>Before the source arrives (the rules' listener publishes the instruments it has, then
/// initializes), a pull reports nothing. Thread-safe: pulls, and the buffers they fill, are under
/// one lock.</para>
/// <para>A callback that throws does not fail the pull: .NET's source runs every callback and then
/// throws an <see cref="AggregateException"/> of the ones that threw, which the pull catches, so
/// that its bookkeeping completes, the other callbacks' reports are taken as usual, and no other
/// instrument is dropped from the scrape or blamed. Which instrument threw cannot be known (the
/// exceptions do not say, and a group with no report may simply have reported nothing), so the
/// failure is logged once per cause (exception type and message, <see cref="CallbackFailureLog"/>)
/// as a callback of the rules' listener, with the exception. The group that threw is not left out
/// of the scrape as one whose every callback threw is under <c>AddMeter</c>: it took no report, so
/// it writes no sample, which is what leaving it out writes, except where a group of two meters has
/// one that threw and one that reported, whose reports are kept (as under <c>AddMeter</c>).</para>
/// </remarks>
/// <param name="logger">Where failing callbacks are logged.</param>
internal sealed partial class ObservablePull(ILogger logger)
{
    private readonly Lock _lock = new();
    private readonly CallbackFailureLog _failures = new(cause => LogCallbackFailed(logger, cause, cause.GetType().Name, cause.Message));
    private IObservableInstrumentsSource? _source;

    // The pull under way or last run; a group's TakenPull and FilledPull compare with it.
    private long _pull;

    /// <summary>The source to pull from, set once by <c>IMetricsListener.Initialize</c>.</summary>
    public void SetSource(IObservableInstrumentsSource source) => Volatile.Write(ref _source, source);

    /// <summary>What <paramref name="group"/> reported in the latest pull it has not taken, pulling first where it has taken them all:
    /// a copy of <paramref name="reports"/>, the group's buffer of the values asked for.</summary>
    public Measurement<T>[] Take<T>(ListenedObservable group, List<Measurement<T>> reports)
        where T : struct
    {
        lock (_lock)
        {
            if (group.TakenPull == _pull)
            {
                _pull++;
                try
                {
                    Volatile.Read(ref _source)?.RecordObservableInstruments();
                }
                catch (Exception e)
                {
                    // Every callback has run and the healthy ones' reports are in: the failure is
                    // the throwing callback's, not the pull's nor the instrument that asked for it.
                    _failures.Log(e);
                }
            }

            group.TakenPull = _pull;
            if (group.FilledPull != _pull)
            {
                // Nothing reported in this pull (the callback reported no measurement).
                group.ClearReports();
                group.FilledPull = _pull;
            }

            return reports.ToArray();
        }
    }

    [LoggerMessage(EventId = 23, Level = LogLevel.Warning, Message = "A callback of an observable instrument that .NET's metrics rules enabled for the ScalableMetricsListener threw {ExceptionType}: {ExceptionMessage}. Which instrument threw is not known (the source runs every callback at once); it reported nothing to this scrape, and the other instruments are scraped as usual. This cause is not logged again.")]
    private static partial void LogCallbackFailed(ILogger logger, Exception exception, string exceptionType, string exceptionMessage);

    /// <summary>
    /// Whether a report for <paramref name="group"/> belongs to a pull (it arrives inside one, on
    /// the pulling thread): then the group's buffers are emptied of an older pull's reports first.
    /// A report from anyone else's <c>RecordObservableInstruments</c> is not one, and is dropped.
    /// </summary>
    public bool Receive(ListenedObservable group)
    {
        if (!_lock.IsHeldByCurrentThread)
        {
            return false;
        }

        if (group.FilledPull != _pull)
        {
            group.ClearReports();
            group.FilledPull = _pull;
        }

        return true;
    }
}
