using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Configuration;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>
/// Logs each cause of failure once (a Warning of one line: what failed, and the exception's type
/// and message), not once per export: a receiver that is down for an hour of 1 s exports writes one
/// line, not 3,600. The exception with its stack goes to Debug (event 67), as do later failures of
/// a cause already logged. A clean export after a failure logs that exports succeed again
/// (Information, once) and forgets the causes, so that the next outage is logged again; a clean
/// export otherwise logs nothing. An export is clean when every request of it was accepted and
/// nothing of it was logged here: an export split into requests, one taken and a later one
/// failing every time, fails every time, and is logged once (<see cref="BeginExport"/>,
/// <see cref="EndExport"/>). The event ids are listed in docs/otlp.md. Every line names the
/// endpoint as <c>scheme://host:port/path</c>, without its query, where some receivers take a key
/// (<see cref="OtlpSettingParser.ShownEndpoint"/>). Thread-safe.
/// </summary>
internal sealed partial class OtlpFailureLog(ILogger logger, Uri endpoint)
{
    private readonly string _endpoint = OtlpSettingParser.ShownEndpoint(endpoint);
    private readonly HashSet<string> _logged = new(StringComparer.Ordinal);

    // Whether something of the export in progress went wrong (failed, refused, partly rejected,
    // given up): it is then not a success, whatever its other requests came to.
    private bool _troubled;

    /// <summary>Starts an export: what went wrong in the one before is forgotten.</summary>
    public void BeginExport()
    {
        lock (_logged)
        {
            _troubled = false;
        }
    }

    /// <summary>Ends an export. When <paramref name="whole"/> (every request of it was accepted) and
    /// nothing of it went wrong, it is a success: after a failure, logged once, and the causes forgotten.</summary>
    public void EndExport(bool whole)
    {
        lock (_logged)
        {
            if (!whole || _troubled || _logged.Count == 0)
            {
                return;
            }

            _logged.Clear();
        }

        LogRecovered(logger, _endpoint);
    }

    public void ExportFailed(OtlpAttempt last, int attempts)
    {
        if (First(last.Cause))
        {
            // A refusal's data is dropped, not sent with the next export: the warning says which.
            if (last.Refused)
            {
                LogExportRefused(logger, _endpoint, attempts, last.Detail);
            }
            else
            {
                LogExportFailed(logger, _endpoint, attempts, last.Detail);
            }

            Stack(last.Exception);
        }
        else
        {
            LogRepeated(logger, _endpoint, last.Detail);
        }
    }

    public void PartialSuccess(OtlpAttempt attempt)
    {
        // A warning (no point rejected, event 68) and a rejection (event 61) are causes of their own:
        // points rejected after a warning are data lost, and logged as such the first time.
        if (First(attempt.RejectedDataPoints > 0 ? attempt.Cause : attempt.Cause + " (warning)"))
        {
            if (attempt.RejectedDataPoints > 0)
            {
                LogPartialSuccess(logger, _endpoint, attempt.RejectedDataPoints, Reason(attempt.Detail));
            }
            else
            {
                LogReceiverWarning(logger, _endpoint, attempt.Detail);
            }
        }
        else
        {
            LogRejectedAgain(logger, _endpoint, attempt.RejectedDataPoints, Reason(attempt.Detail));
        }
    }

    public void AcceptedWithUnreadableAnswer(OtlpAttempt attempt)
    {
        if (First(attempt.Cause))
        {
            LogUnreadableAnswer(logger, _endpoint, attempt.Detail);
            Stack(attempt.Exception);
        }
    }

    public void RequestsGivenUp(int requests, int of, int exports)
    {
        lock (_logged)
        {
            _troubled = true;
        }

        LogRequestsGivenUp(logger, _endpoint, requests, of, exports);
    }

    public void ExportThrew(Exception exception)
    {
        if (First("threw " + exception.GetType().FullName))
        {
            LogExportThrew(logger, exception);
        }
    }

    // A partial success's error_message may be empty: the receiver then said nothing of why.
    private static string Reason(string message) => message.Length > 0 ? message : "the receiver gave no reason";

    private void Stack(Exception? exception)
    {
        if (exception is not null)
        {
            LogStack(logger, _endpoint, exception);
        }
    }

    // Every cause goes through here, first time or not: the export in progress is not a success.
    private bool First(string cause)
    {
        lock (_logged)
        {
            _troubled = true;
            return _logged.Add(cause);
        }
    }

    [LoggerMessage(EventId = 60, Level = LogLevel.Warning, Message = "An OTLP export to {Endpoint} failed after {Attempts} attempt(s): {Detail}. Its data is sent with the next export. This cause is not logged again until an export succeeds.")]
    private static partial void LogExportFailed(ILogger logger, string endpoint, int attempts, string detail);

    [LoggerMessage(EventId = 70, Level = LogLevel.Warning, Message = "The OTLP receiver at {Endpoint} refused an export after {Attempts} attempt(s): {Detail}. The OTLP specification forbids retrying this answer: the export's data points are dropped, not sent again. This cause is not logged again until an export succeeds.")]
    private static partial void LogExportRefused(ILogger logger, string endpoint, int attempts, string detail);

    [LoggerMessage(EventId = 61, Level = LogLevel.Warning, Message = "The OTLP receiver at {Endpoint} rejected {RejectedDataPoints} data point(s) of an export ({ErrorMessage}). Rejected points are not sent again. This is not logged again until an export is taken whole.")]
    private static partial void LogPartialSuccess(ILogger logger, string endpoint, long rejectedDataPoints, string errorMessage);

    [LoggerMessage(EventId = 62, Level = LogLevel.Information, Message = "OTLP exports to {Endpoint} succeed again.")]
    private static partial void LogRecovered(ILogger logger, string endpoint);

    [LoggerMessage(EventId = 63, Level = LogLevel.Debug, Message = "An OTLP export to {Endpoint} failed again: {Detail}.")]
    private static partial void LogRepeated(ILogger logger, string endpoint, string detail);

    [LoggerMessage(EventId = 64, Level = LogLevel.Warning, Message = "The OTLP receiver at {Endpoint} took an export but its answer could not be read: {Detail}")]
    private static partial void LogUnreadableAnswer(ILogger logger, string endpoint, string detail);

    [LoggerMessage(EventId = 65, Level = LogLevel.Error, Message = "An OTLP export failed unexpectedly (collecting or sending); its data goes with the next export.")]
    private static partial void LogExportThrew(ILogger logger, Exception exception);

    [LoggerMessage(EventId = 69, Level = LogLevel.Error, Message = "The last {Requests} of the {Of} requests of a delta OTLP export to {Endpoint} were not accepted in {Exports} exports; their data points are given up so that exports can go on. The requests before them were accepted, and are not sent again.")]
    private static partial void LogRequestsGivenUp(ILogger logger, string endpoint, int requests, int of, int exports);

    [LoggerMessage(EventId = 66, Level = LogLevel.Debug, Message = "The OTLP receiver at {Endpoint} answered with a partial success again, {RejectedDataPoints} data point(s) rejected: {ErrorMessage}.")]
    private static partial void LogRejectedAgain(ILogger logger, string endpoint, long rejectedDataPoints, string errorMessage);

    [LoggerMessage(EventId = 67, Level = LogLevel.Debug, Message = "The exception behind the OTLP export failure logged for {Endpoint}.")]
    private static partial void LogStack(ILogger logger, string endpoint, Exception exception);

    [LoggerMessage(EventId = 68, Level = LogLevel.Warning, Message = "The OTLP receiver at {Endpoint} took an export whole, with a warning: {ErrorMessage}. This is not logged again until an export is taken without one.")]
    private static partial void LogReceiverWarning(ILogger logger, string endpoint, string errorMessage);
}
