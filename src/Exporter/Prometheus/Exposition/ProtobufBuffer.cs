using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Text;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// A protobuf wire writer into one growable buffer, kept from scrape to scrape, that writes nested
/// messages in place: <see cref="BeginMessage"/> leaves one byte for the length, and
/// <see cref="EndMessage"/> writes it there, moving the message's bytes up by the few bytes a
/// longer length needs. So a scrape encodes no message object and no buffer per message, where a
/// <c>CodedOutputStream</c> and a <c>ByteString</c> per nested message made most of what a
/// protobuf scrape allocated.
/// </summary>
/// <remarks>
/// <para>The same design as the OpenTelemetry package's OTLP encoder (<c>OtlpBuffer</c>), written
/// again here because this package references no other exporter package. The wire format is
/// protobuf's, as Google.Protobuf's <c>CodedOutputStream</c> writes it: fields in the order
/// written, lengths in their shortest varint, strings as UTF-8 (a lone surrogate as U+FFFD).</para>
/// <para>The move copies a message once per byte its length takes beyond the first: nothing for the
/// many small messages (labels, buckets, counters), once for the few large ones (a histogram's).</para>
/// <para>Not thread-safe: a scrape at a time.</para>
/// </remarks>
internal sealed class ProtobufBuffer
{
    private const int WireVarint = 0;
    private const int WireFixed64 = 1;
    private const int WireLengthDelimited = 2;

    private byte[] _buffer;
    private int _position;

    /// <summary>Creates an empty buffer of <paramref name="capacity"/> bytes, which grows as needed and keeps its size.</summary>
    /// <param name="capacity">The initial capacity in bytes.</param>
    public ProtobufBuffer(int capacity = 4096)
    {
        _buffer = new byte[capacity];
    }

    /// <summary>The bytes written, valid until the buffer is next written to or cleared.</summary>
    public ReadOnlySpan<byte> WrittenSpan => _buffer.AsSpan(0, _position);

    /// <summary>Forgets everything written, keeping the capacity.</summary>
    public void Clear() => _position = 0;

    /// <summary>Starts the embedded-message field <paramref name="field"/>; returns where its content starts, for <see cref="EndMessage"/>.</summary>
    /// <param name="field">The field number.</param>
    /// <returns>The position of the message's first byte.</returns>
    public int BeginMessage(int field)
    {
        Tag(field, WireLengthDelimited);
        Ensure(1);
        _position++;
        return _position;
    }

    /// <summary>Ends the message started at <paramref name="start"/>: writes its length before it.</summary>
    /// <param name="start">What <see cref="BeginMessage"/> returned.</param>
    public void EndMessage(int start)
    {
        int length = _position - start;
        int extra = VarintSize((uint)length) - 1;
        if (extra > 0)
        {
            Ensure(extra);
            _buffer.AsSpan(start, length).CopyTo(_buffer.AsSpan(start + extra));
            _position += extra;
        }

        int position = start - 1;
        uint value = (uint)length;
        while (value >= 0x80)
        {
            _buffer[position++] = (byte)(value | 0x80);
            value >>= 7;
        }

        _buffer[position] = (byte)value;
    }

    /// <summary>Writes <paramref name="bytes"/> as they are: fields encoded earlier (a series' labels).</summary>
    /// <param name="bytes">Encoded fields.</param>
    public void Raw(ReadOnlySpan<byte> bytes)
    {
        Ensure(bytes.Length);
        bytes.CopyTo(_buffer.AsSpan(_position));
        _position += bytes.Length;
    }

    /// <summary>Writes a string field as UTF-8, skipping null and the empty string (proto2's absent).</summary>
    /// <param name="field">The field number.</param>
    /// <param name="value">The string, or null.</param>
    public void String(int field, string? value)
    {
        if (string.IsNullOrEmpty(value))
        {
            return;
        }

        Tag(field, WireLengthDelimited);
        int length = Encoding.UTF8.GetByteCount(value);
        Varint((uint)length);
        Ensure(length);
        _position += Encoding.UTF8.GetBytes(value, _buffer.AsSpan(_position));
    }

    /// <summary>Writes a <c>double</c> field.</summary>
    public void Double(int field, double value)
    {
        Tag(field, WireFixed64);
        Ensure(8);
        BinaryPrimitives.WriteUInt64LittleEndian(_buffer.AsSpan(_position), BitConverter.DoubleToUInt64Bits(value));
        _position += 8;
    }

    /// <summary>Writes a <c>uint64</c>, <c>uint32</c>, or non-negative <c>int32</c> or enum field.</summary>
    public void Varint(int field, ulong value)
    {
        Tag(field, WireVarint);
        Varint(value);
    }

    /// <summary>Writes an <c>int64</c> or <c>int32</c> field: a negative value in ten bytes (two's complement, sign-extended), as protobuf writes it.</summary>
    public void SignExtendedVarint(int field, long value) => Varint(field, (ulong)value);

    /// <summary>Writes a <c>sint32</c> field (zigzag).</summary>
    public void ZigZag32(int field, int value) => Varint(field, (uint)((value << 1) ^ (value >> 31)));

    /// <summary>Writes a <c>sint64</c> field (zigzag).</summary>
    public void ZigZag64(int field, long value) => Varint(field, (ulong)((value << 1) ^ (value >> 63)));

    /// <summary>The bytes <paramref name="value"/> takes as a varint.</summary>
    public static int VarintSize(ulong value) => (BitOperations.Log2(value | 1) / 7) + 1;

    /// <summary>Writes a varint without a tag (a length).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Varint(ulong value)
    {
        Ensure(10);
        byte[] buffer = _buffer;
        int position = _position;
        while (value >= 0x80)
        {
            buffer[position++] = (byte)(value | 0x80);
            value >>= 7;
        }

        buffer[position++] = (byte)value;
        _position = position;
    }

    private void Tag(int field, int wireType) => Varint((uint)((field << 3) | wireType));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Ensure(int bytes)
    {
        if (_buffer.Length - _position < bytes)
        {
            Grow(bytes);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Grow(int bytes) => Array.Resize(ref _buffer, Math.Max(_buffer.Length * 2, _position + bytes));
}
