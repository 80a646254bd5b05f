using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Prometheus.Exposition;

/// <summary>
/// Writes the Prometheus text exposition format 0.0.4 (prometheus/common's
/// <c>expfmt/text_create.go</c>): per family a <c># HELP</c> line (when there is help) and a
/// <c># TYPE</c> line, then its samples, numbers as Go's <c>strconv.FormatFloat(f, 'g', -1, 64)</c>
/// writes them; no exemplars, no <c>_created</c>, nothing at the end. A name outside the legacy
/// character set (given only for a scrape of version 1.0.0 that allows UTF-8 names) is quoted, as
/// text 1.0.0 writes it: <c>{"http.server.request.duration_seconds_count"} 3</c>, <c># TYPE "…" histogram</c>.
/// </summary>
internal sealed class TextFormatWriter : LineFormatWriter
{
    /// <inheritdoc/>
    public override PrometheusExpositionFormat Format => PrometheusExpositionFormat.Text;

    /// <summary>Its <c># HELP</c> line (when <paramref name="help"/> is not empty) and <c># TYPE</c> line; an info family is a gauge here.</summary>
    /// <inheritdoc/>
    public override void WriteHeader(string family, ExportedKind kind, string? help, string? unit = null)
    {
        if (!string.IsNullOrEmpty(help))
        {
            StartMetadataLine("# HELP ", family);
            Output.WriteHelp(help);
            Output.Write((byte)'\n');
        }

        StartMetadataLine("# TYPE ", family);
        Output.Write(kind switch
        {
            ExportedKind.Counter => "counter\n",
            ExportedKind.Gauge or ExportedKind.Info => "gauge\n",
            ExportedKind.Summary => "summary\n",
            ExportedKind.Histogram => "histogram\n",
            _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "Not a kind the text format carries."),
        });
    }

    /// <summary><c>_sum</c> first, as prometheus/common's <c>expfmt</c> writes it.</summary>
    /// <inheritdoc/>
    protected override void WriteCountAndSum(string name, LabelBlock labels, long count, double sum, bool negativeBuckets)
    {
        WriteSample(name, "_sum", labels, null, 0, sum);
        WriteSample(name, "_count", labels, null, 0, count);
    }

    /// <inheritdoc/>
    protected override void WriteCountAndSum(HistogramLineTemplate lines, long count, double sum, bool negativeBuckets)
    {
        WriteLine(lines.Sum, sum);
        Output.WriteLine(lines.Count, count);
    }

    /// <inheritdoc/>
    protected override void WriteFloat(double value) => Output.Write(value);
}
