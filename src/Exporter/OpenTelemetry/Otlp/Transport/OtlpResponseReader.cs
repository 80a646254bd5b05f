using Google.Protobuf;
using Google.Protobuf.WellKnownTypes;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>
/// Decodes the few messages a receiver answers with, field by field (no generated classes for
/// three messages): <c>ExportMetricsServiceResponse.partial_success</c> (opentelemetry-proto
/// <c>collector/metrics/v1/metrics_service.proto</c>), <c>google.rpc.Status</c> and its
/// <c>google.rpc.RetryInfo</c> detail; the well-known <c>Any</c> and <c>Duration</c> in these
/// through Google.Protobuf's own types. Unknown fields are skipped. Thread-safe (no state).
/// </summary>
internal static class OtlpResponseReader
{
    private const string RetryInfoTypeUrl = "type.googleapis.com/google.rpc.RetryInfo";

    // Reads one message's fields in order: read is handed each field's tag with the stream at its
    // value, reads the value and returns true, or returns false for a field it does not know, which
    // is skipped.
    private delegate bool FieldReader(uint tag, CodedInputStream input);

    /// <summary>The partial success of an <c>ExportMetricsServiceResponse</c>: rejected points and the
    /// receiver's message; (0, null) when it has none. False when the bytes are not that message.</summary>
    public static bool TryReadPartialSuccess(byte[] response, out long rejectedDataPoints, out string? errorMessage)
    {
        long rejected = 0;
        string? error = null;
        bool read = TryRead(response, (tag, input) =>
        {
            if (tag != Tag(1, WireFormat.WireType.LengthDelimited))
            {
                return false;
            }

            ReadFields(input.ReadBytes().CreateCodedInput(), (inner, partial) =>
            {
                if (inner == Tag(1, WireFormat.WireType.Varint))
                {
                    rejected = partial.ReadInt64();
                }
                else if (inner == Tag(2, WireFormat.WireType.LengthDelimited))
                {
                    error = partial.ReadString();
                }
                else
                {
                    return false;
                }

                return true;
            });
            return true;
        });
        rejectedDataPoints = rejected;
        errorMessage = error;
        return read;
    }

    /// <summary>A <c>google.rpc.Status</c>'s code, message and <c>RetryInfo.retry_delay</c>; false
    /// when the bytes are not that message.</summary>
    public static bool TryReadStatus(byte[] status, out int code, out string? message, out TimeSpan? retryDelay)
    {
        int statusCode = 0;
        string? statusMessage = null;
        TimeSpan? delay = null;
        bool read = TryRead(status, (tag, input) =>
        {
            if (tag == Tag(1, WireFormat.WireType.Varint))
            {
                statusCode = input.ReadInt32();
            }
            else if (tag == Tag(2, WireFormat.WireType.LengthDelimited))
            {
                statusMessage = input.ReadString();
            }
            else if (tag == Tag(3, WireFormat.WireType.LengthDelimited))
            {
                delay = ReadRetryInfo(input.ReadBytes()) ?? delay;
            }
            else
            {
                return false;
            }

            return true;
        });
        code = statusCode;
        message = statusMessage;
        retryDelay = delay;
        return read;
    }

    // A google.protobuf.Any; a RetryInfo's value: retry_delay = 1, a google.protobuf.Duration (the first, if several).
    private static TimeSpan? ReadRetryInfo(ByteString detail)
    {
        Any any = Any.Parser.ParseFrom(detail);
        if (any.TypeUrl != RetryInfoTypeUrl)
        {
            return null;
        }

        TimeSpan? retryDelay = null;
        try
        {
            ReadFields(any.Value.CreateCodedInput(), (tag, input) =>
            {
                if (tag != Tag(1, WireFormat.WireType.LengthDelimited))
                {
                    return false;
                }

                Duration delay = Duration.Parser.ParseFrom(input.ReadBytes());

                // A delay beyond a day is no plan to retry within an export: clamp, the export timeout decides.
                retryDelay ??= delay.Seconds < 0 || delay.Nanos < 0 ? TimeSpan.Zero : TimeSpan.FromSeconds(Math.Min(delay.Seconds, 86_400)) + TimeSpan.FromTicks(delay.Nanos / 100);
                return true;
            });
        }
        catch (InvalidProtocolBufferException) when (retryDelay is not null)
        {
            // The first delay was read whole: what follows it does not take it back.
        }

        return retryDelay;
    }

    // Reads a whole message with read; false where the bytes are not a well-formed message.
    private static bool TryRead(byte[] message, FieldReader read)
    {
        try
        {
            ReadFields(new CodedInputStream(message), read);
            return true;
        }
        catch (InvalidProtocolBufferException)
        {
            return false;
        }
    }

    private static void ReadFields(CodedInputStream input, FieldReader read)
    {
        uint tag;
        while ((tag = input.ReadTag()) != 0)
        {
            if (!read(tag, input))
            {
                input.SkipLastField();
            }
        }
    }

    private static uint Tag(int field, WireFormat.WireType type) => WireFormat.MakeTag(field, type);
}
