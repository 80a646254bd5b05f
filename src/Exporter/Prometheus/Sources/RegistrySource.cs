using System.Runtime.CompilerServices;
using Microsoft.Extensions.Logging;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// Writes every instrument of a <see cref="MetricRegistry"/> straight from its series: one
/// aggregation (the partitions' sum) per scrape, no OpenTelemetry point table between, so the
/// exposition holds exactly the series the registry keeps, its overflow series included.
/// </summary>
/// <remarks>
/// <para>Every sample carries <c>otel_scope_name</c> and, when set, <c>otel_scope_version</c>. A
/// series' label block is built once, on its first scrape, and kept with its tag set.</para>
/// <para>Two series of one instrument never come out with the same labels: the registry makes
/// tag sets that export alike one series (<c>SeriesIdentity</c>), and the writer asserts it in
/// debug builds and tests (<see cref="ExpositionWriter.ChecksDuplicates"/>). A family whose name
/// (or a sample name) another family of the scrape already wrote is left out and logged once.</para>
/// <para>Not thread-safe: a scrape at a time (see <c>PrometheusScraper</c>).</para>
/// </remarks>
internal sealed partial class RegistrySource
{
    private readonly MetricRegistry _registry;
    private readonly KeyValuePair<string, string>[] _scopeLabels;
    private readonly ILogger _logger;
    private readonly ConditionalWeakTable<Instrument, RegistryFamily> _families = [];
    private readonly ConditionalWeakTable<TagSet, LabelBlock> _labelBlocks = [];
    private readonly ConditionalWeakTable<Instrument, object> _warned = [];
    private readonly PrometheusTextWriter _labelScratch = new();

    public RegistrySource(MetricRegistry registry, string scopeName, string? scopeVersion, ILogger logger)
    {
        _registry = registry;
        _logger = logger;
        _scopeLabels = string.IsNullOrEmpty(scopeVersion)
            ? [new(ExportedNames.ScopeNameLabel, scopeName)]
            : [new(ExportedNames.ScopeNameLabel, scopeName), new(ExportedNames.ScopeVersionLabel, scopeVersion)];
    }

    /// <summary>Writes every instrument that has a series, adding its sample names to <paramref name="takenNames"/>.</summary>
    public void Write(ExpositionWriter output, HashSet<string> takenNames)
    {
        foreach (Instrument instrument in _registry.Instruments)
        {
            RegistryFamily family = _families.GetValue(instrument, RegistryFamily.Create);
            if (family.Type == PrometheusType.Unsupported || instrument.SeriesCount == 0)
            {
                continue;
            }

            if (family.SampleNames.Any(takenNames.Contains))
            {
                if (!_warned.TryGetValue(instrument, out _))
                {
                    _warned.Add(instrument, instrument);
                    LogFamilyTaken(_logger, instrument.Name, family.Name);
                }

                continue;
            }

            takenNames.UnionWith(family.SampleNames);
            output.WriteHeader(family.Name, family.Type, family.Help);
            switch (instrument)
            {
                case PartitionedCounter counter:
                    foreach (CounterReading reading in counter.Collect())
                    {
                        output.WriteSample(family.Name, string.Empty, Labels(reading.Tags), null, 0, reading.Value);
                    }

                    break;
                case OperationData operation:
                    foreach (OperationReading reading in operation.Collect())
                    {
                        LabelBlock labels = Labels(reading.Tags);
                        output.WriteSample(family.Name, "_sum", labels, null, 0, reading.ElapsedSeconds);
                        output.WriteSample(family.Name, "_count", labels, null, 0, reading.Count);
                    }

                    break;
            }
        }
    }

    private LabelBlock Labels(TagSet tags) => _labelBlocks.GetValue(tags, CreateLabelBlock);

    private LabelBlock CreateLabelBlock(TagSet tags) => LabelBlock.Create(_labelScratch, _scopeLabels, tags);

    [LoggerMessage(EventId = 1, Level = LogLevel.Warning, Message = "The instrument '{Instrument}' is left out of the Prometheus exposition: the family name '{Family}' (or one of its sample names) is already written by another family.")]
    private static partial void LogFamilyTaken(ILogger logger, string instrument, string family);
}
