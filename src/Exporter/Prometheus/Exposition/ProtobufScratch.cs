using Google.Protobuf;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Encodes nested protobuf messages into buffers kept from scrape to scrape, one per nesting depth:
/// a message's length comes before it on the wire, so each is encoded whole first, then written
/// into the message around it (<see cref="ProtobufMessages.WriteMessage"/>) before its depth's
/// buffer is used again. A scrape's messages allocate no buffer once the buffers have grown to fit.
/// </summary>
/// <remarks>Not thread-safe: a scrape at a time.</remarks>
internal sealed class ProtobufScratch
{
    /// <summary>The deepest nesting the exposition writes: metric, histogram, bucket, exemplar, label.</summary>
    public const int MaxDepth = 5;

    private readonly byte[][] _buffers = new byte[MaxDepth][];

    /// <summary>
    /// Encodes the message <paramref name="write"/> writes at <paramref name="depth"/>: the result
    /// wraps this scratch's buffer, so write it into its outer message before encoding another
    /// message at the same depth.
    /// </summary>
    public ByteString Encode<TState>(int depth, TState state, Action<CodedOutputStream, TState> write)
    {
        while (true)
        {
            byte[] buffer = _buffers[depth] ??= new byte[1024];
            var output = new CodedOutputStream(buffer);
            try
            {
                write(output, state);
                return UnsafeByteOperations.UnsafeWrap(buffer.AsMemory(0, (int)output.Position));
            }
            catch (CodedOutputStream.OutOfSpaceException)
            {
                // The message outgrew the buffer: grow it and encode again; it keeps its size for later scrapes.
                _buffers[depth] = new byte[buffer.Length * 2];
            }
        }
    }
}
