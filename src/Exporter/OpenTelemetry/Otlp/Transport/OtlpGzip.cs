using System.IO.Compression;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>Gzips request bodies and gunzips (bounded) response messages. Thread-safe (no state).</summary>
internal static class OtlpGzip
{
    // The exporter runs inside the application: CPU is worth more there than the last few percent of size.
    public static byte[] Compress(ReadOnlySpan<byte> data)
    {
        using var output = new MemoryStream(Math.Max(64, data.Length / 4));
        using (var gzip = new GZipStream(output, CompressionLevel.Fastest, leaveOpen: true))
        {
            gzip.Write(data);
        }

        return output.ToArray();
    }

    /// <summary>The decompressed data, or null when it is not gzip or holds more than <paramref name="limit"/> bytes.</summary>
    public static byte[]? Decompress(byte[] data, int limit)
    {
        try
        {
            using var gzip = new GZipStream(new MemoryStream(data), CompressionMode.Decompress);
            using var output = new MemoryStream();
            byte[] buffer = new byte[4096];
            int read;
            while ((read = gzip.Read(buffer)) > 0)
            {
                if (output.Length + read > limit)
                {
                    return null;
                }

                output.Write(buffer, 0, read);
            }

            return output.ToArray();
        }
        catch (InvalidDataException)
        {
            return null;
        }
    }
}
