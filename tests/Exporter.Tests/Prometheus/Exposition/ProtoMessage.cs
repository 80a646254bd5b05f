using Google.Protobuf;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Exposition;

/// <summary>
/// A protobuf message decoded field by field with <see cref="CodedInputStream"/>, without a schema:
/// varints as <see cref="ulong"/>, fixed64 as <see cref="double"/>, length-delimited fields as nested
/// messages (or strings, read with <see cref="String"/>). Enough to check the writer's messages
/// against metrics.proto's field numbers.
/// </summary>
internal sealed class ProtoMessage
{
    private readonly List<(int Field, object Value)> _fields = [];

    private ProtoMessage()
    {
    }

    public static ProtoMessage Parse(byte[] bytes)
    {
        var message = new ProtoMessage();
        var input = new CodedInputStream(bytes);
        uint tag;
        while ((tag = input.ReadTag()) != 0)
        {
            int field = WireFormat.GetTagFieldNumber(tag);
            object value = WireFormat.GetTagWireType(tag) switch
            {
                WireFormat.WireType.Varint => input.ReadUInt64(),
                WireFormat.WireType.Fixed64 => input.ReadDouble(),
                WireFormat.WireType.LengthDelimited => input.ReadBytes().ToByteArray(),
                WireFormat.WireType other => throw new InvalidDataException($"Unexpected wire type {other} for field {field}."),
            };
            message._fields.Add((field, value));
        }

        return message;
    }

    /// <summary>Splits a delimited stream (varint length, message, repeated) into its messages.</summary>
    public static List<ProtoMessage> ParseDelimited(byte[] bytes)
    {
        var messages = new List<ProtoMessage>();
        var input = new CodedInputStream(bytes);
        while (!input.IsAtEnd)
        {
            messages.Add(Parse(input.ReadBytes().ToByteArray()));
        }

        return messages;
    }

    public IEnumerable<object> All(int field) => _fields.Where(f => f.Field == field).Select(f => f.Value);

    public bool Has(int field) => _fields.Any(f => f.Field == field);

    public ulong Varint(int field) => (ulong)Assert.Single(All(field));

    public long SInt(int field) => ZigZag(Varint(field));

    public double Double(int field) => (double)Assert.Single(All(field));

    public string String(int field) => System.Text.Encoding.UTF8.GetString((byte[])Assert.Single(All(field)));

    public ProtoMessage Message(int field) => Parse((byte[])Assert.Single(All(field)));

    public List<ProtoMessage> Messages(int field) => [.. All(field).Select(v => Parse((byte[])v))];

    public List<long> SInts(int field) => [.. All(field).Select(v => ZigZag((ulong)v))];

    /// <summary>Decodes a sint32 or sint64 read as a varint.</summary>
    public static long ZigZag(ulong value) => (long)(value >> 1) ^ -(long)(value & 1);
}
