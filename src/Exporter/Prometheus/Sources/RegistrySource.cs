using System.Runtime.CompilerServices;
using Microsoft.Extensions.Logging;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Instruments;
using ScalableMetrics.Naming;
using ScalableMetrics.Snapshots;

namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// Writes every instrument of a <see cref="MetricRegistry"/> straight from its series: one
/// aggregation (the partitions' sum) per scrape, no OpenTelemetry point table between, so the
/// exposition holds exactly the series the registry keeps, its overflow series included.
/// </summary>
/// <remarks>
/// <para>Every kind, named by the core (<see cref="ExportedFamily"/>): counters as <c>B_total</c>; up-down counters
/// and gauges as gauges <c>B</c>; histograms, and operations with bucket boundaries, as
/// <c>B_bucket{le="…"}</c> (cumulative, ending with <c>le="+Inf"</c>), <c>B_sum</c>, <c>B_count</c>;
/// exponential histograms as native histograms in protobuf, and as those histograms in the text
/// formats (<c>ExpositionWriter.WriteExponentialHistogram</c>);
/// operations without boundaries as summaries <c>S_sum</c>, <c>S_count</c>; observable
/// instruments as their kind, read by calling their callback. A family with no sample in a scrape
/// (no series yet, a gauge never set, a callback that reported nothing) is not written.</para>
/// <para>Counters and histograms of a registry that keeps exemplars
/// (<see cref="MetricRegistryOptions.ExemplarFilter"/>) carry the newest one of each series, or of
/// each bucket, in OpenMetrics and protobuf.</para>
/// <para>Every sample carries <c>otel_scope_name</c> and, when set, <c>otel_scope_version</c> and
/// <c>otel_scope_schema_url</c> (<see cref="ScopeLabels"/>). A series' label block is built once,
/// on its first scrape, and kept with its tag set.</para>
/// <para>Two series of one instrument never come out with the same labels: the registry makes
/// tag sets that export alike one series (<c>SeriesIdentity</c>), and the tests assert it of the
/// bytes written, through a parser of each format. A family whose name
/// (or a sample name) another family of the scrape already wrote is left out and logged once.</para>
/// <para>An observable instrument whose callback fails is left out of that scrape, its names still
/// reserved, and the failure logged once per cause of that instrument (<see cref="ObservableFailureLog"/>),
/// not at every scrape; the rest of the scrape is written as usual.</para>
/// <para>The registry of the library's own metrics (<see cref="SelfMetrics.SelfMetricsRegistry"/>) is
/// written as any other, but for three things that keep the self-metrics as the scrape wrote them
/// before they were instruments: its families keep their documented <c>scalablemetrics_*</c> names
/// (the default translation's) under every name translation and escaping, a series that describes
/// another registry carries that registry's scope labels (<see cref="SelfMetricLabels"/>), and a
/// count (a callback's <see cref="long"/> values) is written as a whole number (OpenMetrics'
/// <c>1</c>, not <c>1.0</c>).</para>
/// <para>Not thread-safe: a scrape at a time (see <c>PrometheusScraper</c>).</para>
/// </remarks>
internal sealed partial class RegistrySource : IScrapeSource
{
    private readonly MetricRegistry _registry;
    private readonly KeyValuePair<string, string>[] _scopeLabels;
    private readonly ILogger _logger;
    private readonly bool _selfMetrics;
    private readonly ConditionalWeakTable<Instrument, Exported> _exported = [];
    // Each tag set's label block, per escaping of the names (EscapingScheme's order).
    private readonly ConditionalWeakTable<TagSet, LabelBlock>[] _labelBlocks = [[], [], [], []];
    private readonly ConditionalWeakTable<Instrument, object> _warned = [];
    private readonly ObservableFailureLog _callbackFailures;
    private readonly PrometheusTextWriter _labelScratch = new();

    // Every instrument read into columns kept from scrape to scrape rather than into readings: a
    // scrape of series that exist allocates nothing per series.
    private readonly InstrumentSnapshot _snapshot = new();

    // The visitor that writes each instrument, kept as the snapshot is: a scrape makes none.
    private readonly InstrumentWriter _writer;

    // A histogram series' exemplars in the kept array, as the list the writers take.
    private readonly KeptExemplars _keptExemplars = new();

    // Made once, per escaping: a method group made into a delegate at each call would allocate one per series.
    private readonly Func<TagSet, LabelBlock>[] _findLabelBlock;
    private readonly ConditionalWeakTable<TagSet, LabelBlock>.CreateValueCallback[] _createLabelBlock;

    /// <summary>Creates the source of <paramref name="registry"/>, its samples labelled with its scope.</summary>
    /// <param name="registry">The registry.</param>
    /// <param name="scopeName">Its <c>otel_scope_name</c>.</param>
    /// <param name="scopeVersion">Its <c>otel_scope_version</c>, or null for none.</param>
    /// <param name="logger">Where families left out and failing callbacks are logged.</param>
    /// <param name="selfMetrics">Whether <paramref name="registry"/> is the self-metrics' (<see cref="SelfMetrics.SelfMetricsRegistry"/>).</param>
    /// <param name="scopeSchemaUrl">Its <c>otel_scope_schema_url</c> (a listened meter's <c>Meter.TelemetrySchemaUrl</c>), or null for none.</param>
    public RegistrySource(MetricRegistry registry, string scopeName, string? scopeVersion, ILogger logger, bool selfMetrics = false, string? scopeSchemaUrl = null)
    {
        _registry = registry;
        _logger = logger;
        _selfMetrics = selfMetrics;
        _writer = new InstrumentWriter(this);
        _callbackFailures = new ObservableFailureLog((instrument, cause) => LogCallbackFailed(logger, cause, instrument.Name, cause.GetType().Name, cause.Message));
        _createLabelBlock = [.. Enum.GetValues<EscapingScheme>().Select(CreateLabelBlockOf)];
        _findLabelBlock = [.. Enum.GetValues<EscapingScheme>().Select(FindLabelBlockOf)];
        _scopeLabels = ScopeLabels.Of(scopeName, scopeVersion, scopeSchemaUrl);
    }

    /// <inheritdoc/>
    public ValueTask WriteAsync(ExpositionWriter output, HashSet<string> takenNames, CancellationToken cancellationToken)
    {
        Write(output, takenNames);
        return ValueTask.CompletedTask;
    }

    /// <summary>Writes every instrument that has a sample, adding its reserved names to <paramref name="takenNames"/>.</summary>
    public void Write(ExpositionWriter output, HashSet<string> takenNames)
    {
        InstrumentWriter writer = _writer;
        foreach (Instrument instrument in _registry.CollectedInstruments)
        {
            Exported exported = _exported.GetValue(instrument, static i => new Exported(ExportedFamily.For(i)));
            ExportedFamily family = FamilyIn(exported, output);

            // An observable instrument has no series until its callback is first called: a scrape is what calls it.
            if (instrument.SeriesCount == 0 && instrument is not ObservableInstrument)
            {
                continue;
            }

            // Every name the instrument reserves, so that no other meter's family is written under one of them.
            if (TakenNames.AnyOf(family.ReservedNames, takenNames))
            {
                if (!_warned.TryGetValue(instrument, out _))
                {
                    _warned.Add(instrument, instrument);
                    LogFamilyTaken(_logger, instrument.Name, family.TextName);
                }

                continue;
            }

            TakenNames.Take(family.ReservedNames, takenNames);
            if (!output.Includes(family.ReservedNames))
            {
                continue;
            }

            writer.Start(output, new Header(family, instrument, exported.LabelsOf(output.Escaping), _findLabelBlock[(int)output.Escaping]), headerWritten: false);
            instrument.Accept(writer);
        }
    }

    /// <summary>
    /// Writes the instruments of <paramref name="sources"/> (the listened meters' registries, one
    /// per meter name and version) family by family: instruments of several meters that export as
    /// one family (libraries that name their instruments alike; a meter in two versions) are one
    /// family, its header written once and each series labelled with its own meter's
    /// <c>otel_scope_name</c> and <c>otel_scope_version</c>, as OpenTelemetry's exporter writes them.
    /// </summary>
    /// <remarks>A family's members agree on kind and unit: the listener refuses, when it is published,
    /// an instrument whose exported names meet another meter's of another kind or unit. Families are
    /// written in the order of their first member; within one, members in <paramref name="sources"/>' order.
    /// <paramref name="families"/> is the caller's, kept from scrape to scrape: the grouping allocates nothing once it has grown.</remarks>
    public static void WriteMerged(IReadOnlyList<RegistrySource> sources, FamilyGroups<(RegistrySource Source, Instrument Instrument, Exported Exported)> families, ExpositionWriter output, HashSet<string> takenNames)
    {
        families.Clear();
        for (int i = 0; i < sources.Count; i++)
        {
            RegistrySource source = sources[i];
            foreach (Instrument instrument in source._registry.CollectedInstruments)
            {
                if (instrument.SeriesCount == 0 && instrument is not ObservableInstrument)
                {
                    continue;
                }

                Exported exported = source._exported.GetValue(instrument, static i => new Exported(ExportedFamily.For(i)));
                families.Add(source.FamilyIn(exported, output).Name, (source, instrument, exported));
            }
        }

        for (int f = 0; f < families.Count; f++)
        {
            List<(RegistrySource Source, Instrument Instrument, Exported Exported)> members = families[f];
            ExportedFamily family = members[0].Source.FamilyIn(members[0].Exported, output);
            if (!output.Includes(family.ReservedNames))
            {
                TakenNames.Take(family.ReservedNames, takenNames);
                continue;
            }

            bool headerWritten = false;
            for (int m = 0; m < members.Count; m++)
            {
                (RegistrySource source, Instrument instrument, Exported exported) = members[m];

                // Taken by an earlier source, or (refused when published, so not expected) of another kind;
                // or a second instrument of one meter in the family (two names that meet only under the
                // scrape's escaping), whose series would carry the same scope labels as the first's.
                ExportedFamily own = source.FamilyIn(exported, output);
                bool sameFamily = own.Kind == family.Kind && own.ReservedNames.SequenceEqual(family.ReservedNames);
                bool sourceTwice = m > 0 && members[m - 1].Source == source;
                if (!sameFamily || sourceTwice || (!headerWritten && TakenNames.AnyOf(family.ReservedNames, takenNames)))
                {
                    source.WarnTaken(instrument, own);
                    continue;
                }

                var header = new Header(own, instrument, exported.LabelsOf(output.Escaping), source._findLabelBlock[(int)output.Escaping]);
                InstrumentWriter writer = source._writer;
                writer.Start(output, header, headerWritten);
                instrument.Accept(writer);
                headerWritten = writer.HeaderWritten;
            }

            TakenNames.Take(family.ReservedNames, takenNames);
        }
    }

    // The family an instrument is written as in this scrape: under the scraper's name translation
    // and the scrape's escaping, but for the library's own, which keep the names
    // docs/self-diagnostics.md gives them (scalablemetrics_series, with their unit and type
    // suffixes: legacy-valid, so escaped alike under every scheme), what its alerts and dashboards
    // query whatever the service's translation, which is for the service's instruments.
    private ExportedFamily FamilyIn(Exported exported, ExpositionWriter output) =>
        _selfMetrics ? exported.Family : exported.Family.In(output.Utf8WithSuffixes, output.Escaping);

    private void WarnTaken(Instrument instrument, ExportedFamily family)
    {
        if (!_warned.TryGetValue(instrument, out _))
        {
            _warned.Add(instrument, instrument);
            LogFamilyTaken(_logger, instrument.Name, family.TextName);
        }
    }

    // A counter's series, from the snapshot: the line written in one piece, its labels' text from
    // the instrument's kept blocks.
    private void WriteCounter(InstrumentWriter writer, Header header)
    {
        InstrumentSnapshot snapshot = _snapshot;
        writer.WriteHeaderIfAny(header, snapshot.Count);
        ReadOnlySpan<long> values = snapshot.LongValues;
        SeriesLabelBlocks labels = header.Labels;
        for (int i = 0; i < values.Length; i++)
        {
            LabelBlock block = labels.Get(snapshot, i, header.FindLabels);
            writer.Output.WriteCounterSeries(header.Name, header.Kind, block, labels.Text(i), values[i], snapshot.ExemplarAt(i), snapshot.CreatedAt(i, header.Created));
        }
    }

    // A histogram's series, from the snapshot. A series with no exemplar is written as one without
    // exemplars is: the same bytes as one with every bucket's null.
    private void WriteHistogram(InstrumentWriter writer, Header header, IReadOnlyList<double> boundaries)
    {
        InstrumentSnapshot snapshot = _snapshot;
        writer.WriteHeaderIfAny(header, snapshot.Count);
        bool hasExemplars = snapshot.HasExemplars;
        for (int i = 0; i < snapshot.Count; i++)
        {
            KeptExemplars? exemplars = hasExemplars ? ExemplarsOf(snapshot.BucketExemplarsAt(i)) : null;
            writer.Output.WriteHistogram(header.Name, header.Labels.Get(snapshot, i, header.FindLabels), boundaries, snapshot.BucketCountsAt(i), snapshot.SumAt(i), snapshot.CreatedAt(i, header.Created), exemplars);
        }
    }

    // One series' bucket exemplars as the list the writers take; null where every one is null.
    private KeptExemplars? ExemplarsOf(ArraySegment<Exemplar?> exemplars)
    {
        foreach (Exemplar? exemplar in exemplars.AsSpan())
        {
            if (exemplar.HasValue)
            {
                return _keptExemplars.Of(exemplars);
            }
        }

        return null;
    }

    // A family of double values from the snapshot (a double counter's or up-down counter's, a
    // double gauge's, an observable instrument's): each sample, then OpenMetrics' _created.
    private void WriteDoubles(InstrumentWriter writer, Header header)
    {
        InstrumentSnapshot snapshot = _snapshot;
        writer.WriteHeaderIfAny(header, snapshot.Count);
        ReadOnlySpan<double> values = snapshot.DoubleValues;
        for (int i = 0; i < values.Length; i++)
        {
            LabelBlock labels = header.Labels.Get(snapshot, i, header.FindLabels);
            writer.Output.WriteSample(header.Name, string.Empty, labels, null, 0, values[i], snapshot.ExemplarAt(i));
            writer.Output.WriteCreated(header.Name, header.Kind, labels, snapshot.CreatedAt(i, header.Created));
        }
    }

    // A family of long values from the snapshot (an up-down counter's, a gauge's): samples only,
    // as a gauge has no _created.
    private void WriteLongs(InstrumentWriter writer, Header header)
    {
        InstrumentSnapshot snapshot = _snapshot;
        writer.WriteHeaderIfAny(header, snapshot.Count);
        ReadOnlySpan<long> values = snapshot.LongValues;
        for (int i = 0; i < values.Length; i++)
        {
            writer.Output.WriteSample(header.Name, string.Empty, header.Labels.Get(snapshot, i, header.FindLabels), null, 0, values[i]);
        }
    }

    // The self-metrics' counts, reported as longs and read as doubles (exact: far below 2^53),
    // written as longs are; observable, so without _created.
    private void WriteWholeNumbers(InstrumentWriter writer, Header header)
    {
        InstrumentSnapshot snapshot = _snapshot;
        writer.WriteHeaderIfAny(header, snapshot.Count);
        ReadOnlySpan<double> values = snapshot.DoubleValues;
        for (int i = 0; i < values.Length; i++)
        {
            writer.Output.WriteSample(header.Name, string.Empty, header.Labels.Get(snapshot, i, header.FindLabels), null, 0, (long)values[i]);
        }
    }

    // An exponential histogram's series, from the snapshot's points.
    private void WriteExponentialHistogram(InstrumentWriter writer, Header header)
    {
        InstrumentSnapshot snapshot = _snapshot;
        writer.WriteHeaderIfAny(header, snapshot.Count);
        for (int i = 0; i < snapshot.Count; i++)
        {
            writer.Output.WriteExponentialHistogram(header.Name, header.Labels.Get(snapshot, i, header.FindLabels), snapshot.ExponentialHistogramAt(i), snapshot.CreatedAt(i, header.Created));
        }
    }

    // An operation's series, from the snapshot: a histogram in seconds where it has boundaries, a summary where not.
    private void WriteOperations(InstrumentWriter writer, Header header, IReadOnlyList<double>? boundaries)
    {
        InstrumentSnapshot snapshot = _snapshot;
        writer.WriteHeaderIfAny(header, snapshot.Count);
        for (int i = 0; i < snapshot.Count; i++)
        {
            LabelBlock labels = header.Labels.Get(snapshot, i, header.FindLabels);
            if (boundaries is not null)
            {
                writer.Output.WriteHistogram(header.Name, labels, boundaries, snapshot.BucketCountsAt(i), snapshot.ElapsedSecondsAt(i), snapshot.CreatedAt(i, header.Created));
            }
            else
            {
                writer.Output.WriteSummary(header.Name, labels, snapshot.OperationCountAt(i), snapshot.ElapsedSecondsAt(i), snapshot.CreatedAt(i, header.Created));
            }
        }
    }

    // Reads an observable instrument into the snapshot. The callback is the service's code:
    // whatever it throws is that instrument's failure, not the scrape's.
    private bool TryObserve(ObservableInstrument observable)
    {
        try
        {
            observable.ReadInto(_snapshot);
            return true;
        }
        catch (InvalidOperationException e)
        {
            _callbackFailures.Log(observable, e);
            return false;
        }
    }

    private Func<TagSet, LabelBlock> FindLabelBlockOf(EscapingScheme escaping) =>
        tags => _labelBlocks[(int)escaping].GetValue(tags, _createLabelBlock[(int)escaping]);

    private ConditionalWeakTable<TagSet, LabelBlock>.CreateValueCallback CreateLabelBlockOf(EscapingScheme escaping) =>
        tags => _selfMetrics
            ? SelfMetricLabels.Create(_labelScratch, _scopeLabels, tags, escaping)
            : LabelBlock.Create(_labelScratch, _scopeLabels, tags, escaping);

    [LoggerMessage(EventId = 1, Level = LogLevel.Warning, Message = "The instrument '{Instrument}' is left out of the Prometheus exposition: the family name '{Family}' (or one of its sample names) is already written by another family.")]
    private static partial void LogFamilyTaken(ILogger logger, string instrument, string family);

    [LoggerMessage(EventId = 4, Level = LogLevel.Warning, Message = "The observable instrument '{Instrument}' is left out of this scrape: its callback failed with {ExceptionType}: {ExceptionMessage}. It is left out of every scrape its callback fails in; this cause is not logged again.")]
    private static partial void LogCallbackFailed(ILogger logger, Exception exception, string instrument, string exceptionType, string exceptionMessage);

    /// <summary>
    /// Writes one instrument of a scrape, by its kind: a kind the core adds does not compile until
    /// it is written here.
    /// </summary>
    private sealed class InstrumentWriter(RegistrySource source) : IInstrumentSink
    {
        /// <summary>Where the scrape is written.</summary>
        public ExpositionWriter Output { get; private set; } = null!;

        /// <summary>The family of the instrument about to be written.</summary>
        public Header Header { get; private set; }

        /// <summary>Whether the family's header is written: by this instrument, or by another meter's
        /// instrument of the same family written before it (<see cref="WriteMerged"/>).</summary>
        public bool HeaderWritten { get; private set; }

        /// <summary>Readies the writer for one instrument, before the instrument accepts it.</summary>
        /// <param name="output">Where the scrape is written.</param>
        /// <param name="header">The instrument's family.</param>
        /// <param name="headerWritten">Whether that family's header is already written.</param>
        public void Start(ExpositionWriter output, Header header, bool headerWritten)
        {
            Output = output;
            Header = header;
            HeaderWritten = headerWritten;
        }

        /// <summary>Writes the family's header before its first sample, once.</summary>
        public void WriteHeaderIfAny(Header header, int sampleCount)
        {
            if (sampleCount > 0 && !HeaderWritten)
            {
                Output.WriteHeader(header.Name, header.Kind, header.Help, header.Unit);
                HeaderWritten = true;
            }
        }

        public void Counter(PartitionedCounter counter) => Read(counter).WriteCounter(this, Header);

        public void DoubleCounter(PartitionedDoubleCounter counter) => Read(counter).WriteDoubles(this, Header);

        public void UpDownCounter(PartitionedUpDownCounter counter) => Read(counter).WriteLongs(this, Header);

        public void DoubleUpDownCounter(PartitionedDoubleUpDownCounter counter) => Read(counter).WriteDoubles(this, Header);

        public void Gauge(Gauge gauge) => Read(gauge).WriteLongs(this, Header);

        public void DoubleGauge(DoubleGauge gauge) => Read(gauge).WriteDoubles(this, Header);

        public void ObservableCounter(ObservableCounter counter) => WriteObserved(counter);

        public void ObservableUpDownCounter(ObservableUpDownCounter counter) => WriteObserved(counter);

        public void ObservableGauge(ObservableGauge gauge) => WriteObserved(gauge);

        public void Histogram(PartitionedHistogram histogram) => Read(histogram).WriteHistogram(this, Header, histogram.Boundaries);

        public void ExponentialHistogram(PartitionedExponentialHistogram histogram) => Read(histogram).WriteExponentialHistogram(this, Header);

        public void Operation(OperationData operation) => Read(operation).WriteOperations(this, Header, operation.Boundaries);

        // Reads the instrument into the source's snapshot, and returns the source to write what it read.
        private RegistrySource Read(Instrument instrument)
        {
            instrument.ReadInto(source._snapshot);

            // An instrument whose series were removed reads fewer: the blocks past them hold removed series.
            Header.Labels.KeepFirst(source._snapshot.Count);
            return source;
        }

        private void WriteObserved(ObservableInstrument observable)
        {
            if (!source.TryObserve(observable))
            {
                return;
            }

            if (source._selfMetrics && !observable.IsFloatingPoint)
            {
                source.WriteWholeNumbers(this, Header);
            }
            else
            {
                source.WriteDoubles(this, Header);
            }
        }
    }

    /// <summary>
    /// What the writer needs of one instrument's family: its text format name (a counter's is its
    /// sample name <c>B_total</c>, as the text format 0.0.4 names the family after it), kind, help,
    /// unit and start.
    /// </summary>
    private readonly struct Header(ExportedFamily family, Instrument instrument, SeriesLabelBlocks labels, Func<TagSet, LabelBlock> findLabels)
    {
        public string Name { get; } = family.TextName;

        public ExportedKind Kind { get; } = family.Kind;

        public string? Help { get; } = instrument.Description;

        public string Unit { get; } = family.Unit;

        /// <summary>When the family's series started counting (OpenMetrics' <c>_created</c>, which the
        /// writer gives counters, histograms and summaries only): the instrument's creation, or null for
        /// an observable instrument, whose values start wherever its callback's source started, which it does not say.</summary>
        public DateTimeOffset? Created { get; } = instrument is ObservableInstrument ? null : instrument.CreatedAt;

        /// <summary>The instrument's label blocks by series position, kept from scrape to scrape, in the scrape's escaping.</summary>
        public SeriesLabelBlocks Labels { get; } = labels;

        /// <summary>Finds (or makes) a tag set's label block in the scrape's escaping.</summary>
        public Func<TagSet, LabelBlock> FindLabels { get; } = findLabels;
    }

    /// <summary>What is kept of one instrument from scrape to scrape: its family and its series' label blocks, per escaping.</summary>
    internal sealed class Exported(ExportedFamily family)
    {
        private readonly SeriesLabelBlocks?[] _labels = new SeriesLabelBlocks?[4];

        public ExportedFamily Family { get; } = family;

        /// <summary>The series' label blocks in <paramref name="escaping"/>, made on first ask (a scrape at a time).</summary>
        public SeriesLabelBlocks LabelsOf(EscapingScheme escaping) => _labels[(int)escaping] ??= new();
    }
}
