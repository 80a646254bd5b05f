namespace ScalableMetrics.Exporter.Prometheus.Scraping;

/// <summary>
/// A write-only stream into a buffer the caller lends, grown into a new one where it must, and
/// handed back whole (<see cref="Detach"/>): where a collection's compressed body is written, so
/// that it is kept for the collection's other scrapes without a copy.
/// </summary>
/// <remarks>Not thread-safe: one writer.</remarks>
internal sealed class BufferStream(byte[] buffer) : Stream
{
    private byte[] _buffer = buffer;
    private int _length;

    /// <inheritdoc/>
    public override bool CanRead => false;

    /// <inheritdoc/>
    public override bool CanSeek => false;

    /// <inheritdoc/>
    public override bool CanWrite => true;

    /// <inheritdoc/>
    public override long Length => _length;

    /// <inheritdoc/>
    public override long Position
    {
        get => _length;
        set => throw new NotSupportedException();
    }

    /// <summary>The buffer and what was written in it; the caller owns the buffer from now on.</summary>
    public ArraySegment<byte> Detach()
    {
        var written = new ArraySegment<byte>(_buffer, 0, _length);
        _buffer = [];
        _length = 0;
        return written;
    }

    /// <inheritdoc/>
    public override void Write(ReadOnlySpan<byte> buffer)
    {
        if (_buffer.Length - _length < buffer.Length)
        {
            Array.Resize(ref _buffer, Math.Max(2 * _buffer.Length, _length + buffer.Length));
        }

        buffer.CopyTo(_buffer.AsSpan(_length));
        _length += buffer.Length;
    }

    /// <inheritdoc/>
    public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

    /// <inheritdoc/>
    public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
    {
        Write(buffer.Span);
        return ValueTask.CompletedTask;
    }

    /// <inheritdoc/>
    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
    {
        Write(buffer.AsSpan(offset, count));
        return Task.CompletedTask;
    }

    /// <inheritdoc/>
    public override void Flush()
    {
    }

    /// <inheritdoc/>
    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    /// <inheritdoc/>
    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    /// <inheritdoc/>
    public override void SetLength(long value) => throw new NotSupportedException();
}
