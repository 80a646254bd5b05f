using Google.Protobuf;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>
/// Decodes the few messages a receiver answers with, field by field (no generated classes for
/// three messages): <c>ExportMetricsServiceResponse.partial_success</c> (opentelemetry-proto
/// <c>collector/metrics/v1/metrics_service.proto</c>), <c>google.rpc.Status</c> and its
/// <c>google.rpc.RetryInfo</c> detail. Unknown fields are skipped. Thread-safe (no state).
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
                    retryDelay = ReadRetryInfo(input.ReadBytes().ToByteArray()) ?? retryDelay;
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

    // A google.protobuf.Any: type_url = 1, value = 2; a RetryInfo's value: retry_delay = 1, a
    // google.protobuf.Duration (seconds = 1, nanos = 2).
    private static TimeSpan? ReadRetryInfo(byte[] any)
    {
        var input = new CodedInputStream(any);
        string? typeUrl = null;
        byte[]? value = null;
        uint tag;
        while ((tag = input.ReadTag()) != 0)
        {
            if (tag == Tag(1, WireFormat.WireType.LengthDelimited))
            {
                typeUrl = input.ReadString();
            }
            else if (tag == Tag(2, WireFormat.WireType.LengthDelimited))
            {
                value = input.ReadBytes().ToByteArray();
            }
            else
            {
                input.SkipLastField();
            }
        }

        if (typeUrl != RetryInfoTypeUrl || value is null)
        {
            return null;
        }

        input = new CodedInputStream(value);
        while ((tag = input.ReadTag()) != 0)
        {
            if (tag != Tag(1, WireFormat.WireType.LengthDelimited))
            {
                input.SkipLastField();
                continue;
            }

            var duration = new CodedInputStream(input.ReadBytes().ToByteArray());
            long seconds = 0;
            int nanos = 0;
            uint inner;
            while ((inner = duration.ReadTag()) != 0)
            {
                if (inner == Tag(1, WireFormat.WireType.Varint))
                {
                    seconds = duration.ReadInt64();
                }
                else if (inner == Tag(2, WireFormat.WireType.Varint))
                {
                    nanos = duration.ReadInt32();
                }
                else
                {
                    duration.SkipLastField();
                }
            }

            // A delay beyond a day is no plan to retry within an export: clamp, the export timeout decides.
            return seconds < 0 || nanos < 0 ? TimeSpan.Zero : TimeSpan.FromSeconds(Math.Min(seconds, 86_400)) + TimeSpan.FromTicks(nanos / 100);
        }

        return null;
    }

    private static uint Tag(int field, WireFormat.WireType type) => WireFormat.MakeTag(field, type);
}
