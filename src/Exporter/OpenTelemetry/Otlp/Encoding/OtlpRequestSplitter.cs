using System.Diagnostics;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;

/// <summary>
/// Splits one encoded <c>ExportMetricsServiceRequest</c> into requests of at most a given size,
/// whole data points each: every request repeats the resource, and the scope and metric (name,
/// description, unit, temporality, monotonicity) of the points it carries, so a receiver reads
/// each as a complete request, and the points, taken in order, are exactly the original's.
/// </summary>
/// <remarks>
/// <para>Why: receivers cap a request's size (the OpenTelemetry Collector's gRPC receiver refuses
/// a message over 4 MiB, <c>max_recv_msg_size_mib</c>, after decompression), and an export of a
/// few thousand histogram series passes it (opentelemetry-dotnet#5504, python#2710, java#5394).
/// The size counted is the uncompressed message's, which is what a gRPC receiver checks and at
/// least what a gzip-compressed HTTP body takes on the wire.</para>
/// <para>Works on the bytes the collector encoded, not on its instruments: a body under the cap is
/// sent as it is, with no copy; a larger one is copied once, point by point, into a buffer kept
/// from export to export. A single data point larger than the cap goes alone in a request of its own.</para>
/// <para>Not thread-safe: the requests it returns lie in its buffer until the next <see cref="Split"/>.</para>
/// </remarks>
internal sealed class OtlpRequestSplitter
{
    // What a nested message's length may take beyond the one byte BeginMessage leaves for it,
    // for each of the four levels (ResourceMetrics, ScopeMetrics, Metric, its data), plus slack.
    private const int NestingReserve = 4 * 4 + 8;

    private readonly ProtobufBuffer _output = new(64 * 1024);
    private readonly List<(int Start, int End)> _requests = [];

    /// <summary>The smallest cap that leaves room for a resource, a scope, a metric and a small data point.</summary>
    public const int MinimumMaxBytes = 1024;

    /// <summary>
    /// <paramref name="request"/> as requests of at most <paramref name="maxBytes"/> bytes each,
    /// in order: the request itself where it fits.
    /// </summary>
    /// <param name="request">An <c>ExportMetricsServiceRequest</c> as <see cref="OtlpMetricsCollector"/> encodes it.</param>
    /// <param name="maxBytes">The largest request, in bytes of the uncompressed message.</param>
    /// <returns>The requests; each valid until the next call.</returns>
    public IReadOnlyList<ReadOnlyMemory<byte>> Split(ReadOnlyMemory<byte> request, int maxBytes)
    {
        Debug.Assert(maxBytes >= MinimumMaxBytes, "the options refuse a smaller cap");
        if (request.Length <= maxBytes)
        {
            return [request];
        }

        _output.Clear();
        _requests.Clear();
        var state = new SplitState(this, maxBytes);
        var body = new WireReader(request.Span);
        while (body.Next(out int field, out ReadOnlySpan<byte> resourceMetrics, out _))
        {
            if (field == OtlpFields.RequestResourceMetrics)
            {
                SplitResourceMetrics(ref state, resourceMetrics);
            }
        }

        state.Flush();
        ReadOnlyMemory<byte> written = _output.Written;
        var requests = new ReadOnlyMemory<byte>[_requests.Count];
        for (int i = 0; i < requests.Length; i++)
        {
            requests[i] = written[_requests[i].Start.._requests[i].End];
        }

        return requests;
    }

    // ResourceMetrics { resource, scope_metrics…, schema_url }: each ScopeMetrics split in turn,
    // the resource and schema_url repeated in every request.
    private static void SplitResourceMetrics(ref SplitState state, ReadOnlySpan<byte> resourceMetrics)
    {
        state.ResourceHeader = Header(resourceMetrics, OtlpFields.ResourceMetricsScopeMetrics);
        var reader = new WireReader(resourceMetrics);
        while (reader.Next(out int field, out ReadOnlySpan<byte> scopeMetrics, out _))
        {
            if (field == OtlpFields.ResourceMetricsScopeMetrics)
            {
                state.ScopeHeader = Header(scopeMetrics, OtlpFields.ScopeMetricsMetrics);
                var scope = new WireReader(scopeMetrics);
                while (scope.Next(out int scopeField, out ReadOnlySpan<byte> metric, out _))
                {
                    if (scopeField == OtlpFields.ScopeMetricsMetrics)
                    {
                        SplitMetric(ref state, metric);
                    }
                }

                state.EndScope();
            }
        }

        state.EndResource();
    }

    // Metric { name, description, unit, (gauge | sum | histogram | exponential_histogram) { data_points…, temporality, monotonic } }.
    private static void SplitMetric(ref SplitState state, ReadOnlySpan<byte> metric)
    {
        var reader = new WireReader(metric);
        while (reader.Next(out int field, out ReadOnlySpan<byte> data, out bool delimited))
        {
            if (!delimited || field is not (OtlpFields.MetricGauge or OtlpFields.MetricSum or OtlpFields.MetricHistogram or OtlpFields.MetricExponentialHistogram))
            {
                continue;
            }

            state.MetricHeader = Header(metric, field);
            state.DataField = field;
            state.DataHeader = Header(data, OtlpFields.DataPoints);
            var points = new WireReader(data);
            while (points.Next(out int pointField, out _, out _, out ReadOnlySpan<byte> point))
            {
                if (pointField == OtlpFields.DataPoints)
                {
                    state.Add(point);
                }
            }

            state.EndMetric();
        }
    }

    // The fields of a message other than the repeated field that the split carries, as they are
    // (all small: names, temporality, a scope, a resource), copied into every request.
    private static byte[] Header(ReadOnlySpan<byte> message, int splitField)
    {
        var header = new List<byte>();
        var reader = new WireReader(message);
        while (reader.Next(out int field, out _, out _, out ReadOnlySpan<byte> whole))
        {
            if (field != splitField)
            {
                header.AddRange(whole);
            }
        }

        return [.. header];
    }

    // The request being written, its messages opened as the first point that needs them arrives.
    private ref struct SplitState(OtlpRequestSplitter splitter, int maxBytes)
    {
        private readonly ProtobufBuffer _output = splitter._output;
        private int _requestStart = -1;
        private int _resource = -1;
        private int _scope = -1;
        private int _metric = -1;
        private int _data = -1;
        private int _points;

        public byte[] ResourceHeader = [];
        public byte[] ScopeHeader = [];
        public byte[] MetricHeader = [];
        public int DataField;
        public byte[] DataHeader = [];

        public void Add(ReadOnlySpan<byte> point)
        {
            // What this point adds: itself, and the messages it has to open in this request.
            int adds = point.Length
                + (_resource < 0 ? 2 + ResourceHeader.Length : 0)
                + (_scope < 0 ? 2 + ScopeHeader.Length : 0)
                + (_metric < 0 ? 4 + MetricHeader.Length + DataHeader.Length : 0);
            if (_points > 0 && _output.Position - _requestStart + adds + NestingReserve > maxBytes)
            {
                Flush();
            }

            if (_requestStart < 0)
            {
                _requestStart = _output.Position;
            }

            if (_resource < 0)
            {
                _resource = _output.BeginMessage(OtlpFields.RequestResourceMetrics);
                _output.Raw(ResourceHeader);
            }

            if (_scope < 0)
            {
                _scope = _output.BeginMessage(OtlpFields.ResourceMetricsScopeMetrics);
                _output.Raw(ScopeHeader);
            }

            if (_metric < 0)
            {
                _metric = _output.BeginMessage(OtlpFields.ScopeMetricsMetrics);
                _output.Raw(MetricHeader);
                _data = _output.BeginMessage(DataField);
                _output.Raw(DataHeader);
            }

            _output.Raw(point);
            _points++;
        }

        public void EndMetric()
        {
            if (_metric >= 0)
            {
                _output.EndMessage(_data);
                _output.EndMessage(_metric);
                _metric = -1;
                _data = -1;
            }
        }

        public void EndScope()
        {
            EndMetric();
            if (_scope >= 0)
            {
                _output.EndMessage(_scope);
                _scope = -1;
            }
        }

        public void EndResource()
        {
            EndScope();
            if (_resource >= 0)
            {
                _output.EndMessage(_resource);
                _resource = -1;
            }
        }

        // Ends the request being written, if any; the next point starts a new one.
        public void Flush()
        {
            EndResource();
            if (_requestStart >= 0)
            {
                splitter._requests.Add((_requestStart, _output.Position));
            }

            _requestStart = -1;
            _points = 0;
        }
    }

    // Reads the fields of one message: each field's number, its content where length-delimited,
    // and the whole field (tag included) as written.
    private ref struct WireReader(ReadOnlySpan<byte> message)
    {
        private readonly ReadOnlySpan<byte> _message = message;
        private int _position;

        public bool Next(out int field, out ReadOnlySpan<byte> content, out bool delimited) =>
            Next(out field, out content, out delimited, out _);

        public bool Next(out int field, out ReadOnlySpan<byte> content, out bool delimited, out ReadOnlySpan<byte> whole)
        {
            content = default;
            whole = default;
            delimited = false;
            field = 0;
            if (_position >= _message.Length)
            {
                return false;
            }

            int start = _position;
            ulong tag = Varint();
            field = (int)(tag >> 3);
            switch ((int)(tag & 7))
            {
                case 0:
                    Varint();
                    break;
                case 1:
                    _position += 8;
                    break;
                case 2:
                    int length = checked((int)Varint());
                    content = _message.Slice(_position, length);
                    _position += length;
                    delimited = true;
                    break;
                case 5:
                    _position += 4;
                    break;
                default:
                    throw new InvalidOperationException($"An OTLP request the collector encoded holds wire type {tag & 7}, which it never writes.");
            }

            whole = _message[start.._position];
            return true;
        }

        private ulong Varint()
        {
            ulong value = 0;
            for (int shift = 0; ; shift += 7)
            {
                byte b = _message[_position++];
                value |= (ulong)(b & 0x7F) << shift;
                if (b < 0x80)
                {
                    return value;
                }
            }
        }
    }
}
