using OpenTelemetry.Proto.Collector.Metrics.V1;
using OpenTelemetry.Proto.Common.V1;
using OpenTelemetry.Proto.Metrics.V1;
using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Encoding;

namespace ScalableMetrics.Exporter.Tests.OpenTelemetry.Otlp;

/// <summary>Reads what the tests compare out of requests decoded with the classes generated from opentelemetry-proto.</summary>
internal static class OtlpDecoded
{
    /// <summary>Decodes a batch's body.</summary>
    public static ExportMetricsServiceRequest Parse(OtlpExportBatch batch) => ExportMetricsServiceRequest.Parser.ParseFrom(batch.Body.Span);

    /// <summary>The one metric named <paramref name="name"/> in <paramref name="request"/>, in any scope.</summary>
    public static Metric Metric(ExportMetricsServiceRequest request, string name) =>
        Assert.Single(request.ResourceMetrics.SelectMany(r => r.ScopeMetrics).SelectMany(s => s.Metrics), m => m.Name == name);

    /// <summary>Whether <paramref name="request"/> has a metric named <paramref name="name"/>.</summary>
    public static bool HasMetric(ExportMetricsServiceRequest request, string name) =>
        request.ResourceMetrics.SelectMany(r => r.ScopeMetrics).SelectMany(s => s.Metrics).Any(m => m.Name == name);

    /// <summary>Attributes as a sorted "key=value" string, values in a form that tells the OTLP types apart.</summary>
    public static string Attributes(IEnumerable<KeyValue> attributes) =>
        string.Join(",", attributes.Select(a => a.Key + "=" + Value(a.Value)).Order(StringComparer.Ordinal));

    /// <summary>A value in a form that tells the OTLP types apart: <c>s:</c>, <c>b:</c>, <c>i:</c>, <c>d:</c>, <c>[...]</c>.</summary>
    public static string Value(AnyValue value) => value.ValueCase switch
    {
        AnyValue.ValueOneofCase.StringValue => "s:" + value.StringValue,
        AnyValue.ValueOneofCase.BoolValue => "b:" + value.BoolValue,
        AnyValue.ValueOneofCase.IntValue => "i:" + value.IntValue,
        AnyValue.ValueOneofCase.DoubleValue => "d:" + value.DoubleValue.ToString("R", System.Globalization.CultureInfo.InvariantCulture),
        AnyValue.ValueOneofCase.ArrayValue => "[" + string.Join(";", value.ArrayValue.Values.Select(Value)) + "]",
        _ => "?" + value.ValueCase,
    };

    /// <summary>The data point of <paramref name="points"/> whose attributes read <paramref name="attributes"/>.</summary>
    public static NumberDataPoint Point(IEnumerable<NumberDataPoint> points, string attributes) =>
        Assert.Single(points, p => Attributes(p.Attributes) == attributes);
}
