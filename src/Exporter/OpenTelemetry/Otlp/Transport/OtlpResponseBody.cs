namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>
/// Reads a receiver's answer body, at most <see cref="Limit"/> bytes of it, so that a receiver that
/// sends too much (or forever) costs bounded memory. Thread-safe (no state).
/// </summary>
internal static class OtlpResponseBody
{
    /// <summary>The most bytes of an answer read: a <c>Status</c> or a <c>partial_success</c> is far smaller.</summary>
    public const int Limit = 64 * 1024;

    /// <summary>The body; <c>Truncated</c> when it was longer than <see cref="Limit"/>; <c>Error</c>
    /// when the connection broke before its end.</summary>
    public static async Task<(byte[] Body, bool Truncated, IOException? Error)> ReadAsync(HttpContent content, CancellationToken cancellationToken)
    {
        byte[] buffer = new byte[(int)Math.Min(Limit + 1, content.Headers.ContentLength is long length and >= 0 ? length + 1 : 4096)];
        int filled = 0;
        try
        {
            await using Stream stream = await content.ReadAsStreamAsync(cancellationToken).ConfigureAwait(false);
            while (true)
            {
                if (filled == buffer.Length)
                {
                    if (buffer.Length > Limit)
                    {
                        return (buffer[..Limit], true, null);
                    }

                    Array.Resize(ref buffer, Math.Min(Limit + 1, buffer.Length * 2));
                }

                int read = await stream.ReadAsync(buffer.AsMemory(filled), cancellationToken).ConfigureAwait(false);
                if (read == 0)
                {
                    return (buffer[..filled], false, null);
                }

                filled += read;
            }
        }
        catch (IOException e)
        {
            return (buffer[..filled], false, e);
        }
        catch (HttpRequestException e)
        {
            return (buffer[..filled], false, new IOException(e.Message, e));
        }
    }
}
