namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// The failures of observable callbacks that run together and whose other reports are kept:
/// <c>RecordObservableInstruments</c> (of a <see cref="System.Diagnostics.Metrics.MeterListener"/>,
/// or of the source .NET hands the rules' listener) runs every callback it has, then throws an
/// <see cref="AggregateException"/> of the ones that threw, which does not say which instrument
/// threw each. Each cause (exception type and message) is logged the first time it is seen, so
/// that a callback that throws at every collection is logged once, not at every scrape.
/// </summary>
/// <remarks>Used by <see cref="ObservablePull"/> (the rules' listener) and by a
/// <see cref="ListenedObservable"/> of several meters (<c>AddMeter</c>), each with a message of its
/// own; by <see cref="ObservableFailureLog"/>, one per instrument; and by <see cref="PrometheusScraper"/>
/// for the failed collections a scrape is answered 500 for, which are logged once per cause alike.
/// Thread-safe: it is called on failures only, so its lock costs no collection that succeeds.</remarks>
/// <param name="log">Logs one cause, with its exception.</param>
internal sealed class CallbackFailureLog(Action<Exception> log)
{
    // The causes logged are kept up to this many; a cause past them is not logged.
    private const int MaxLoggedCauses = 64;

    private readonly HashSet<(Type Type, string Message)> _loggedCauses = [];
    private readonly Lock _lock = new();

    /// <summary>Logs each cause of <paramref name="failure"/> (each exception a callback threw, an
    /// <see cref="AggregateException"/> flattened) that was not logged before.</summary>
    /// <param name="failure">What running the callbacks threw.</param>
    public void Log(Exception failure)
    {
        IEnumerable<Exception> causes = failure is AggregateException aggregate ? aggregate.Flatten().InnerExceptions : [failure];
        foreach (Exception cause in causes)
        {
            bool first;
            lock (_lock)
            {
                first = _loggedCauses.Count < MaxLoggedCauses && _loggedCauses.Add((cause.GetType(), cause.Message));
            }

            if (first)
            {
                log(cause);
            }
        }
    }
}
