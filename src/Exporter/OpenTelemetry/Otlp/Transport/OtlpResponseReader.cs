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

    /// <summary>The partial success of an <c>ExportMetricsServiceResponse</c>: rejected points and the
    /// receiver's message; (0, null) when it has none. False when the bytes are not that message.</summary>
    public static bool TryReadPartialSuccess(byte[] response, out long rejectedDataPoints, out string? errorMessage)
    {
        rejectedDataPoints = 0;
        errorMessage = null;
        try
        {
            var input = new CodedInputStream(response);
            uint tag;
            while ((tag = input.ReadTag()) != 0)
            {
                if (tag == Tag(1, WireFormat.WireType.LengthDelimited))
                {
                    var partial = new CodedInputStream(input.ReadBytes().ToByteArray());
                    uint inner;
                    while ((inner = partial.ReadTag()) != 0)
                    {
                        if (inner == Tag(1, WireFormat.WireType.Varint))
                        {
                            rejectedDataPoints = partial.ReadInt64();
                        }
                        else if (inner == Tag(2, WireFormat.WireType.LengthDelimited))
                        {
                            errorMessage = partial.ReadString();
                        }
                        else
                        {
                            partial.SkipLastField();
                        }
                    }
                }
                else
                {
                    input.SkipLastField();
                }
            }

            return true;
        }
        catch (InvalidProtocolBufferException)
        {
            return false;
        }
    }

    /// <summary>A <c>google.rpc.Status</c>'s code, message and <c>RetryInfo.retry_delay</c>; false
    /// when the bytes are not that message.</summary>
    public static bool TryReadStatus(byte[] status, out int code, out string? message, out TimeSpan? retryDelay)
    {
        code = 0;
        message = null;
        retryDelay = null;
        try
        {
            var input = new CodedInputStream(status);
            uint tag;
            while ((tag = input.ReadTag()) != 0)
            {
                if (tag == Tag(1, WireFormat.WireType.Varint))
                {
                    code = input.ReadInt32();
                }
                else if (tag == Tag(2, WireFormat.WireType.LengthDelimited))
                {
                    message = input.ReadString();
                }
                else if (tag == Tag(3, WireFormat.WireType.LengthDelimited))
                {
                    retryDelay = ReadRetryInfo(input.ReadBytes()) ?? retryDelay;
                }
                else
                {
                    input.SkipLastField();
                }
            }

            return true;
        }
        catch (InvalidProtocolBufferException)
        {
            return false;
        }
    }

    // A google.protobuf.Any; a RetryInfo's value: retry_delay = 1, a google.protobuf.Duration.
    private static TimeSpan? ReadRetryInfo(ByteString detail)
    {
        Any any = Any.Parser.ParseFrom(detail);
        if (any.TypeUrl != RetryInfoTypeUrl)
        {
            return null;
        }

        CodedInputStream input = any.Value.CreateCodedInput();
        uint tag;
        while ((tag = input.ReadTag()) != 0)
        {
            if (tag != Tag(1, WireFormat.WireType.LengthDelimited))
            {
                input.SkipLastField();
                continue;
            }

            Duration delay = Duration.Parser.ParseFrom(input.ReadBytes());

            // A delay beyond a day is no plan to retry within an export: clamp, the export timeout decides.
            return delay.Seconds < 0 || delay.Nanos < 0 ? TimeSpan.Zero : TimeSpan.FromSeconds(Math.Min(delay.Seconds, 86_400)) + TimeSpan.FromTicks(delay.Nanos / 100);
        }

        return null;
    }

    private static uint Tag(int field, WireFormat.WireType type) => WireFormat.MakeTag(field, type);
}
