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
/// <para>Guards, for what the registry should already refuse: a family whose name (or a sample
/// name) another family of the scrape already wrote is left out and logged once; series of one
/// instrument whose labels come out alike are written as one sample, their values summed, and
/// logged once. So the writer never writes two samples Prometheus would store as one.</para>
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
    private readonly Dictionary<LabelBlock, int> _sampleIndex = [];
    private readonly List<(LabelBlock Labels, long Count, double Sum)> _samples = [];

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
                WarnOnce(instrument, family, static (logger, family) => LogFamilyTaken(logger, family.Instrument.Name, family.Name));
                continue;
            }

            takenNames.UnionWith(family.SampleNames);
            Read(family);
            if (_samples.Count == 0)
            {
                continue;
            }

            output.WriteHeader(family.Name, family.Type, family.Help);
            foreach ((LabelBlock labels, long count, double sum) in _samples)
            {
                if (family.Type == PrometheusType.Counter)
                {
                    output.WriteSample(family.Name, string.Empty, labels, null, 0, count);
                }
                else
                {
                    output.WriteSample(family.Name, "_sum", labels, null, 0, sum);
                    output.WriteSample(family.Name, "_count", labels, null, 0, count);
                }
            }
        }
    }

    // Fills _samples with one entry per distinct label block, in the order the series come.
    private void Read(RegistryFamily family)
    {
        _samples.Clear();
        _sampleIndex.Clear();
        switch (family.Instrument)
        {
            case PartitionedCounter counter:
                foreach (CounterReading reading in counter.Collect())
                {
                    Add(family, reading.Tags, reading.Value, 0);
                }

                break;
            case OperationData operation:
                foreach (OperationReading reading in operation.Collect())
                {
                    Add(family, reading.Tags, reading.Count, reading.ElapsedSeconds);
                }

                break;
        }
    }

    private void Add(RegistryFamily family, TagSet tags, long count, double sum)
    {
        LabelBlock labels = _labelBlocks.GetValue(tags, CreateLabelBlock);
        if (_sampleIndex.TryGetValue(labels, out int index))
        {
            // Two series Prometheus would store as one: one sample, so that no value is dropped.
            (LabelBlock same, long countSoFar, double sumSoFar) = _samples[index];
            _samples[index] = (same, countSoFar + count, sumSoFar + sum);
            WarnOnce(family.Instrument, (family, labels), static (logger, state) => LogSeriesMerged(logger, state.family.Instrument.Name, state.labels.ToString()));
            return;
        }

        _sampleIndex.Add(labels, _samples.Count);
        _samples.Add((labels, count, sum));
    }

    private LabelBlock CreateLabelBlock(TagSet tags) => LabelBlock.Create(_scopeLabels, tags);

    private void WarnOnce<TState>(Instrument instrument, TState state, Action<ILogger, TState> log)
    {
        if (!_warned.TryGetValue(instrument, out _))
        {
            _warned.Add(instrument, instrument);
            log(_logger, state);
        }
    }

    [LoggerMessage(EventId = 1, Level = LogLevel.Warning, Message = "The instrument '{Instrument}' is left out of the Prometheus exposition: the family name '{Family}' (or one of its sample names) is already written by another family.")]
    private static partial void LogFamilyTaken(ILogger logger, string instrument, string family);

    [LoggerMessage(EventId = 2, Level = LogLevel.Warning, Message = "Series of the instrument '{Instrument}' export with the same labels {{{Labels}}}; they are written as one sample, their values summed.")]
    private static partial void LogSeriesMerged(ILogger logger, string instrument, string labels);
}
