using System.Buffers.Binary;
using System.Diagnostics;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Text;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// A protobuf wire writer into one growable buffer, kept from use to use, that writes nested
/// messages in place: <see cref="BeginMessage(int)"/> leaves one byte for the length, and
/// <see cref="EndMessage(int)"/> writes it there, moving the message's bytes up by the few bytes a
/// longer length needs. So an encoding makes no message object and no buffer per message, where a
/// Google.Protobuf <c>CodedOutputStream</c> and a <c>ByteString</c> per nested message made most of
/// what a protobuf scrape allocated and most of an OTLP export's time.
/// </summary>
/// <remarks>
/// <para>Both protobuf encodings use it: the Prometheus exposition here, and the OpenTelemetry
/// package's OTLP requests (that package references this one, not the other way round). The wire
/// format is protobuf's, as <c>CodedOutputStream</c> writes it: fields in the order written,
/// lengths in their shortest varint, strings as UTF-8 (a lone surrogate as U+FFFD).</para>
/// <para>The move copies a message once per byte its length takes beyond the first: nothing for the
/// many small messages (labels, buckets, attributes, data points), once for the few large ones;
/// <see cref="BeginMessage(int, int)"/> reserves the length a large message had last time, so that
/// it moves only when that changes.</para>
/// <para>Not thread-safe: one scrape or export at a time.</para>
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

    /// <summary>The bytes written so far.</summary>
    public int Position => _position;

    /// <summary>The bytes written, valid until the buffer is next written to or cleared.</summary>
    public ReadOnlyMemory<byte> Written => _buffer.AsMemory(0, _position);

    /// <summary>The bytes written, valid until the buffer is next written to or cleared.</summary>
    public ReadOnlySpan<byte> WrittenSpan => _buffer.AsSpan(0, _position);

    /// <summary>Forgets everything written, keeping the capacity.</summary>
    public void Clear() => _position = 0;

    /// <summary>Forgets what was written after <paramref name="position"/> (a message that came out empty).</summary>
    /// <param name="position">A position read from <see cref="Position"/> earlier in this encoding.</param>
    public void Truncate(int position)
    {
        Debug.Assert(position >= 0 && position <= _position);
        _position = position;
    }

    /// <summary>Starts the length-delimited field <paramref name="field"/>, with one byte left for its length; returns where its content starts, for <see cref="EndMessage(int)"/>.</summary>
    /// <param name="field">The field number.</param>
    /// <returns>The position of the message's first byte.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int BeginMessage(int field) => BeginMessage(field, expectedLength: 0);

    /// <summary>Ends the message started at <paramref name="start"/>: writes its length before it, moving the message up where the length takes more than one byte.</summary>
    /// <param name="start">What <see cref="BeginMessage(int)"/> returned.</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void EndMessage(int start) => EndMessage(start, expectedLength: 0);

    /// <summary>
    /// Starts the length-delimited field <paramref name="field"/> of a large message, with room for
    /// the length <paramref name="expectedLength"/> takes as a varint, so that
    /// <see cref="EndMessage(int, int)"/> moves its content only where the length turns out to take
    /// a different number of bytes (<see cref="EndMessage(int)"/> moves all of a message of 128
    /// bytes or more). The encoding stays canonical either way.
    /// </summary>
    /// <param name="field">The field number.</param>
    /// <param name="expectedLength">The length the message is expected to have: the last export's of the same message.</param>
    /// <returns>The position of the message's first byte.</returns>
    public int BeginMessage(int field, int expectedLength)
    {
        Tag(field, WireLengthDelimited);
        int reserved = VarintSize((uint)expectedLength);
        Ensure(reserved);
        _position += reserved;
        return _position;
    }

    /// <summary>Ends the message <see cref="BeginMessage(int, int)"/> started at <paramref name="start"/> with the same <paramref name="expectedLength"/>: writes its length before it.</summary>
    /// <param name="start">What <see cref="BeginMessage(int, int)"/> returned.</param>
    /// <param name="expectedLength">What was passed to <see cref="BeginMessage(int, int)"/>.</param>
    /// <returns>The message's length, the expected length of the same message next time.</returns>
    public int EndMessage(int start, int expectedLength)
    {
        int length = _position - start;
        int reserved = VarintSize((uint)expectedLength);
        int size = VarintSize((uint)length);
        if (size != reserved)
        {
            int shift = size - reserved;
            if (shift > 0)
            {
                Ensure(shift);
            }

            _buffer.AsSpan(start, length).CopyTo(_buffer.AsSpan(start + shift));
            _position += shift;
            start += shift;
        }

        WriteVarintAt(start - size, (uint)length);
        return length;
    }

    /// <summary>Writes <paramref name="bytes"/> as they are: fields encoded earlier (a series' labels, an attribute kept from an earlier export).</summary>
    /// <param name="bytes">Encoded fields.</param>
    public void Raw(ReadOnlySpan<byte> bytes)
    {
        Ensure(bytes.Length);
        bytes.CopyTo(_buffer.AsSpan(_position));
        _position += bytes.Length;
    }

    /// <summary>Writes a string field as UTF-8, the empty string too (proto3's oneof and repeated fields keep it).</summary>
    public void String(int field, string value)
    {
        Tag(field, WireLengthDelimited);
        int length = Encoding.UTF8.GetByteCount(value);
        Varint((uint)length);
        Ensure(length);
        _position += Encoding.UTF8.GetBytes(value, _buffer.AsSpan(_position));
    }

    /// <summary>Writes a string field as UTF-8 unless it is null or empty: proto2's absent optional field, as Prometheus' messages leave it out.</summary>
    /// <param name="field">The field number.</param>
    /// <param name="value">The string, or null.</param>
    public void NonEmptyString(int field, string? value)
    {
        if (!string.IsNullOrEmpty(value))
        {
            String(field, value);
        }
    }

    /// <summary>Writes a bytes field.</summary>
    public void Bytes(int field, ReadOnlySpan<byte> value)
    {
        Tag(field, WireLengthDelimited);
        Varint((uint)value.Length);
        Raw(value);
    }

    /// <summary>Writes a <c>fixed64</c> (or <c>sfixed64</c>) field.</summary>
    public void Fixed64(int field, ulong value)
    {
        Tag(field, WireFixed64);
        Fixed64Value(value);
    }

    /// <summary>Writes a <c>double</c> field.</summary>
    public void Double(int field, double value) => Fixed64(field, BitConverter.DoubleToUInt64Bits(value));

    /// <summary>Writes a <c>uint64</c>, <c>int64</c> (two's complement), <c>int32</c>, <c>bool</c> or enum field.</summary>
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

    /// <summary>Writes the packed <c>repeated double</c> field <paramref name="field"/>.</summary>
    public void PackedDoubles(int field, IReadOnlyList<double> values)
    {
        if (values.Count == 0)
        {
            return;
        }

        BeginPackedFixed64(field, values.Count);
        for (int i = 0; i < values.Count; i++)
        {
            Fixed64Value(BitConverter.DoubleToUInt64Bits(values[i]));
        }
    }

    /// <summary>Starts a packed repeated <c>fixed64</c> field of <paramref name="count"/> values, which <see cref="Fixed64Value"/> then writes.</summary>
    public void BeginPackedFixed64(int field, int count)
    {
        Tag(field, WireLengthDelimited);
        Varint((uint)(count * 8));
        Ensure(count * 8);
    }

    /// <summary>Writes a value of a packed field without its tag.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Fixed64Value(ulong value)
    {
        Ensure(8);
        BinaryPrimitives.WriteUInt64LittleEndian(_buffer.AsSpan(_position), value);
        _position += 8;
    }

    /// <summary>Writes a varint without a tag (a value of a packed field, or a length).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Varint(ulong value)
    {
        Ensure(10);
        _position = WriteVarintAt(_position, value);
    }

    /// <summary>The bytes <paramref name="value"/> takes as a varint.</summary>
    public static int VarintSize(ulong value) => (BitOperations.Log2(value | 1) / 7) + 1;

    private void Tag(int field, int wireType) => Varint((uint)((field << 3) | wireType));

    // Writes value as a varint at position, where there is room; returns the position after it.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int WriteVarintAt(int position, ulong value)
    {
        byte[] buffer = _buffer;
        while (value >= 0x80)
        {
            buffer[position++] = (byte)(value | 0x80);
            value >>= 7;
        }

        buffer[position++] = (byte)value;
        return position;
    }

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
