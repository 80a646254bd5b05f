using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>
/// Sends each collection as requests under the size cap (<see cref="OtlpRequestSplitter"/>), one
/// after another, and commits the collection only when every one of them was accepted.
/// </summary>
/// <remarks>
/// <para>A delta collection partly accepted (some requests taken, a later one not) is neither
/// lost nor counted twice: its requests not yet accepted are kept, and the next export sends them
/// first, before it collects; only when the last of them is accepted is the collection committed,
/// so that the next collection's deltas start where it ended. Meanwhile nothing new is collected:
/// the registries keep counting, and the first collection after carries it all. A request that
/// the receiver keeps refusing would hold the export for ever: after
/// <see cref="MaxHeldExports"/> exports it is given up, logged with the data points it carried,
/// and the collection committed.</para>
/// <para>A collection none of whose requests was accepted is not committed, as before: the next
/// collection's deltas include its changes. A cumulative collection is never held: the next one
/// carries every value again.</para>
/// <para>A request the receiver refuses with a status that must not be retried (HTTP 400, 413,
/// gRPC INVALID_ARGUMENT: the OTLP specification's "All other 4xx or 5xx response status codes
/// MUST NOT be retried") is dropped, not held: the requests after it are sent, and a collection
/// whose requests were all either accepted or refused is committed, so its refused data points
/// go neither in a later request nor in the next collection's deltas. Holding is for requests
/// that may yet be taken: their retries ran out of attempts or time.</para>
/// <para>One export, every request of it and every retry, takes at most the export timeout
/// (<see cref="ScalableMetricsOtlpOptions.ExportTimeout"/>: "how long one export may take, retries
/// included"): each request is sent with the time the export has left, and a request whose turn
/// comes when none is left is not sent. Where requests before it were taken, the collection is held
/// as above, and the next export sends it and those after it; where none was, its changes go with
/// the next collection.</para>
/// <para>Not thread-safe: one export at a time (the service's gate).</para>
/// </remarks>
internal sealed class OtlpBatchSender(OtlpExportClient client, int maxRequestBytes)
{
    /// <summary>How many exports in a row may try a partly accepted collection's remaining requests before they are given up.</summary>
    public const int MaxHeldExports = 3;

    private readonly OtlpRequestSplitter _splitter = new();
    private OtlpExportBatch? _held;
    private IReadOnlyList<ReadOnlyMemory<byte>> _requests = [];
    private int _next;
    private int _heldExports;

    // Whether a request of this export was refused and dropped: the export is then not whole.
    private bool _refused;

    // Whether this export sent a request at all.
    private bool _sent;

    // When this export started, on the client's clock: its requests share its export timeout.
    private long _started;

    /// <summary>How many requests the last collection was sent as. For tests.</summary>
    internal int LastRequestCount => _requests.Count;

    /// <summary>
    /// One export: the held collection's remaining requests if there is one, then, once it is
    /// committed, a new collection of <paramref name="collector"/>, sent request by request.
    /// </summary>
    /// <returns>Whether everything this export had to send was accepted.</returns>
    /// <remarks><para>The export, not each request, is what the failure log calls a success: a request taken
    /// while a later one of the same export fails is no recovery, so a split export that fails every
    /// time on its second request is logged once, not a failure and a recovery per export.</para>
    /// <para>A collection of no data point (a delta export with nothing recorded since the last, or no
    /// instrument at all) is committed and not sent: the OTLP specification's "Empty Telemetry
    /// Envelopes" says senders SHOULD NOT send such a request. An export that sent nothing is no
    /// sign that the receiver is back, and does not log that exports succeed again.</para></remarks>
    public async Task<bool> ExportAsync(OtlpMetricsCollector collector, CancellationToken cancellationToken)
    {
        client.Log.BeginExport();
        _sent = false;
        _started = client.Clock.GetTimestamp();
        bool whole = await SendExportAsync(collector, cancellationToken).ConfigureAwait(false);
        client.Log.EndExport(whole && _sent);
        return whole;
    }

    private async Task<bool> SendExportAsync(OtlpMetricsCollector collector, CancellationToken cancellationToken)
    {
        _refused = false;
        if (_held is not null)
        {
            if (!await SendRemainingAsync(cancellationToken).ConfigureAwait(false))
            {
                if (++_heldExports < MaxHeldExports || cancellationToken.IsCancellationRequested)
                {
                    return false;
                }

                client.Log.RequestsGivenUp(_requests.Count - _next, _requests.Count, MaxHeldExports);
            }

            // Accepted at last (or given up): its baselines move, and a fresh collection starts from them.
            _held.Commit();
            _held = null;
            if (TimeLeft() <= TimeSpan.Zero)
            {
                // No time left to send a new collection: the registries keep counting for the next export.
                _requests = [];
                _next = 0;
                return !_refused;
            }
        }

        OtlpExportBatch batch = collector.Collect();
        if (batch.DataPointCount == 0)
        {
            // Nothing to carry: no empty request is sent, and the collection counts as sent.
            batch.Commit();
            _requests = [];
            _next = 0;
            return true;
        }

        _requests = _splitter.Split(batch.Body, maxRequestBytes);
        _next = 0;
        if (await SendRemainingAsync(cancellationToken).ConfigureAwait(false))
        {
            // Every request taken or refused: a refused one's changes must not go again either.
            batch.Commit();
            return !_refused;
        }

        if (_next > 0 && collector.Temporality != OtlpTemporality.Cumulative)
        {
            // Partly accepted (or refused): what was taken or refused must not go again, what may
            // yet be taken must still go.
            _held = batch;
            _heldExports = 0;
        }

        return false;
    }

    private TimeSpan TimeLeft() => client.ExportTimeout - client.Clock.GetElapsedTime(_started);

    // Sends the requests from _next on, in order, past any refused (dropped, logged by the client),
    // stopping at the first that may yet be taken: true when none is left to send.
    private async Task<bool> SendRemainingAsync(CancellationToken cancellationToken)
    {
        for (; _next < _requests.Count; _next++)
        {
            _sent = true;
            OtlpOutcome outcome = await client.SendAsync(_requests[_next], TimeLeft(), cancellationToken).ConfigureAwait(false);
            if (outcome == OtlpOutcome.Retryable)
            {
                return false;
            }

            _refused |= outcome == OtlpOutcome.Failed;
        }

        return true;
    }
}
