namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>
/// Sends one request of an export: attempts with a timeout each, retried with exponential backoff
/// and full jitter (or after the receiver's <c>Retry-After</c>) while the answer is retryable, all
/// within the time the export has left of its export timeout, after the OTLP specification's "Retry" and OpenTelemetry .NET's retry policy (1 s first,
/// times 1.5, at most 5 s, 5 attempts). Never throws for the receiver's sake. One export at a time.
/// </summary>
internal sealed class OtlpExportClient
{
    private const int MaxAttempts = 5;
    private static readonly TimeSpan s_initialBackoff = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan s_maxBackoff = TimeSpan.FromSeconds(5);

    private readonly IOtlpTransport _transport;
    private readonly TimeSpan _timeout;
    private readonly TimeSpan _exportTimeout;
    private readonly Func<TimeSpan, CancellationToken, Task> _delay;
    private readonly Random _random;

    // delay waits between attempts; tests pass one that records and returns at once. clock times the
    // attempts and the export (the system's; a test's own, to move time by hand).
    public OtlpExportClient(IOtlpTransport transport, TimeSpan timeout, TimeSpan exportTimeout, ILogger logger, Func<TimeSpan, CancellationToken, Task>? delay = null, Random? random = null, TimeProvider? clock = null)
    {
        _transport = transport;
        _timeout = timeout;
        _exportTimeout = exportTimeout;
        _delay = delay ?? Task.Delay;
        _random = random ?? Random.Shared;
        Clock = clock ?? TimeProvider.System;
        Log = new OtlpFailureLog(logger, transport.Endpoint);
    }

    public OtlpFailureLog Log { get; }

    /// <summary>How long one export may take, all its requests and their retries included.</summary>
    public TimeSpan ExportTimeout => _exportTimeout;

    /// <summary>The clock the attempts and the export are timed by.</summary>
    public TimeProvider Clock { get; }

    /// <summary>Sends <paramref name="request"/> as an export of its own, with the whole export timeout.</summary>
    public Task<OtlpOutcome> SendAsync(ReadOnlyMemory<byte> request, CancellationToken cancellationToken) =>
        SendAsync(request, _exportTimeout, cancellationToken);

    /// <summary>Sends <paramref name="request"/> (an uncompressed <c>ExportMetricsServiceRequest</c>), one
    /// request of an export that has <paramref name="timeLeft"/> left of its export timeout: its
    /// attempts and the waits between them end within that.</summary>
    /// <returns><see cref="OtlpOutcome.Accepted"/> when the receiver took it;
    /// <see cref="OtlpOutcome.Failed"/> when it refused it with a status the OTLP specification says
    /// must not be retried (the caller drops its data); <see cref="OtlpOutcome.Retryable"/> when it
    /// might take it later: retries ran out of attempts or time (none is made where no time is left),
    /// or <paramref name="cancellationToken"/> was cancelled. A failure is logged; a success is not, for one request of an export is not the
    /// export: whoever sends the export's requests tells <see cref="Log"/> what the export came to.</returns>
    public async Task<OtlpOutcome> SendAsync(ReadOnlyMemory<byte> request, TimeSpan timeLeft, CancellationToken cancellationToken)
    {
        if (timeLeft <= TimeSpan.Zero)
        {
            // The export's earlier requests took all its time: this one waits for the next export.
            Log.ExportFailed(new OtlpAttempt(OtlpOutcome.Retryable, "timeout", $"the export timeout of {_exportTimeout.TotalSeconds:0.###} s ran out before this request of it was sent"), 0);
            return OtlpOutcome.Retryable;
        }

        long started = Clock.GetTimestamp();
        ReadOnlyMemory<byte> payload = _transport.Prepare(request);
        using var export = new CancellationTokenSource(timeLeft, Clock);
        using CancellationTokenRegistration stopped = cancellationToken.UnsafeRegister(static state => ((CancellationTokenSource)state!).Cancel(), export);
        TimeSpan backoff = s_initialBackoff;
        OtlpAttempt last;
        int attempts = 0;
        while (true)
        {
            attempts++;
            last = await AttemptAsync(payload, export.Token).ConfigureAwait(false);
            if (cancellationToken.IsCancellationRequested)
            {
                // The host's stop ran out of time: the data stays for a later export, if any.
                return OtlpOutcome.Retryable;
            }

            if (last.Outcome == OtlpOutcome.Accepted)
            {
                Accepted(last);
                return OtlpOutcome.Accepted;
            }

            if (last.Outcome == OtlpOutcome.Failed || attempts == MaxAttempts || export.IsCancellationRequested)
            {
                break;
            }

            TimeSpan wait = last.RetryAfter ?? TimeSpan.FromTicks((long)(backoff.Ticks * _random.NextDouble()));
            backoff = TimeSpan.FromTicks(Math.Min((long)(backoff.Ticks * 1.5), s_maxBackoff.Ticks));
            if (Clock.GetElapsedTime(started) + wait >= timeLeft)
            {
                // Waiting would end past the export timeout: give up now rather than at its end.
                last = last with { Detail = last.Detail + $" (a retry after {wait.TotalSeconds:0.###} s would end past the export timeout)" };
                break;
            }

            try
            {
                await _delay(wait, export.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                if (cancellationToken.IsCancellationRequested)
                {
                    return OtlpOutcome.Retryable;
                }

                break;
            }
        }

        Log.ExportFailed(last, attempts);

        // Failed only where the receiver's last answer was a refusal; retries out of attempts or time,
        // and an unexpected exception here, keep the data for a later export.
        return last.Refused ? OtlpOutcome.Failed : OtlpOutcome.Retryable;
    }

    private async Task<OtlpAttempt> AttemptAsync(ReadOnlyMemory<byte> payload, CancellationToken exportToken)
    {
        using var attempt = new CancellationTokenSource(_timeout, Clock);
        using CancellationTokenRegistration exportTimeUp = exportToken.UnsafeRegister(static state => ((CancellationTokenSource)state!).Cancel(), attempt);
        try
        {
            return await _transport.SendAsync(payload, attempt.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            TimeSpan limit = exportToken.IsCancellationRequested ? _exportTimeout : _timeout;
            string which = exportToken.IsCancellationRequested ? "the export timeout" : "the request timeout";
            return new OtlpAttempt(OtlpOutcome.Retryable, "timeout", $"no answer within {which} of {limit.TotalSeconds:0.###} s");
        }
        catch (HttpRequestException e)
        {
            // Refused, reset, closed before the answer: the receiver may take it on a later try.
            return new OtlpAttempt(OtlpOutcome.Retryable, "unreachable " + e.HttpRequestError, $"{OneLine(e)} ({e.HttpRequestError})") { Exception = e };
        }
        catch (Exception e) when (e is IOException or InvalidOperationException or NotSupportedException)
        {
            return new OtlpAttempt(OtlpOutcome.Failed, "unexpected " + e.GetType().Name, OneLine(e)) { Exception = e, Local = true };
        }
    }

    // The exception's type and message on one line, for the Warning; the stack goes to Debug.
    private static string OneLine(Exception e)
    {
        string message = e.InnerException is { } inner && !e.Message.Contains(inner.Message, StringComparison.Ordinal)
            ? $"{e.Message} ({inner.GetType().Name}: {inner.Message})"
            : e.Message;
        return $"{e.GetType().Name}: {message.ReplaceLineEndings(" ")}";
    }

    private void Accepted(OtlpAttempt attempt)
    {
        switch (attempt.Cause)
        {
            case "":
                // Taken cleanly: whether exports succeed again is the export's to say (EndExport).
                break;
            case "partial success":
                Log.PartialSuccess(attempt);
                break;
            default:
                Log.AcceptedWithUnreadableAnswer(attempt);
                break;
        }
    }
}
