namespace ScalableMetrics.Naming;

/// <summary>
/// The names a registry's instruments hold, and which instrument holds each: instrument names
/// (<see cref="ExportedFamily.InstrumentNames"/>, those of the instruments it is published as
/// included), compared case-insensitively as OpenTelemetry identifies instruments; and exported
/// names (<see cref="ExportedFamily.ReservedNames"/>), compared ordinally as Prometheus does. The
/// registry asks here before it creates an instrument, so that no two instruments are published
/// or exported alike.
/// </summary>
/// <remarks>Not thread-safe: the registry's lock guards it.</remarks>
/// <param name="selfMetricNamesAllowed">Whether instruments may take the names the library keeps
/// for its own metrics (<see cref="SelfMetricNames"/>): only in the registry the library makes for
/// them, so that no user instrument can pass for one.</param>
internal sealed class NameReservations(bool selfMetricNamesAllowed)
{
    private readonly Dictionary<string, Instrument> _instrumentNames = new(StringComparer.OrdinalIgnoreCase);
    private readonly Dictionary<string, Instrument> _exportedNames = new(StringComparer.Ordinal);

    // The exported names under each UTF-8 translation an exporter of the registry writes
    // (ReserveTranslation), one table per scheme that then changes names: a scrape writes one
    // translation under one scheme, so names only meet within a table.
    private readonly List<(bool WithSuffixes, EscapingScheme Scheme, Dictionary<string, Instrument> Names)> _translatedNames = [];

    // The schemes whose names differ from the default translation's under a UTF-8 translation.
    private static readonly EscapingScheme[] s_translatedSchemes = [EscapingScheme.AllowUtf8, EscapingScheme.Dots, EscapingScheme.Values];

    /// <summary>The instrument that holds <paramref name="name"/> as an instrument name (its own or a published instrument's), or null.</summary>
    public Instrument? HolderOf(string name) => _instrumentNames.GetValueOrDefault(name);

    /// <summary>Throws unless every name an instrument of <paramref name="family"/> would take is free.</summary>
    /// <param name="kind">The kind of instrument to create, for the message (<c>PartitionedCounter</c>).</param>
    /// <param name="name">Its name.</param>
    /// <param name="unit">Its unit.</param>
    /// <param name="family">Its family.</param>
    /// <exception cref="ArgumentException">A name is held by another instrument (parameter <c>name</c>; the message names both).</exception>
    public void ThrowIfTaken(string kind, string name, string? unit, ExportedFamily family)
    {
        foreach (string instrumentName in family.InstrumentNames)
        {
            if (_instrumentNames.TryGetValue(instrumentName, out Instrument? holder))
            {
                throw NameTaken(instrumentName, holder);
            }
        }

        foreach (string exportedName in family.ReservedNames)
        {
            if (IsWrittenByTheExposition(exportedName))
            {
                throw new ArgumentException(
                    $"The {kind} {ExceptionText.Quote(name)} (unit {ExceptionText.Quote(unit)}) would export as {ExceptionText.Quote(exportedName)}, which every scrape writes for the service's resource: the {ExportedNames.TargetInfoName} sample, of the info family {ExportedNames.TargetInfoFamilyName} in OpenMetrics.",
                    nameof(name));
            }

            if (!selfMetricNamesAllowed && SelfMetricNames.Contains(exportedName))
            {
                throw new ArgumentException(
                    $"The {kind} {ExceptionText.Quote(name)} (unit {ExceptionText.Quote(unit)}) would export as {ExceptionText.Quote(exportedName)}, a name the scrape keeps for the library's own metrics (those starting with {SelfMetricNames.Prefix}).",
                    nameof(name));
            }

            if (_exportedNames.TryGetValue(exportedName, out Instrument? holder))
            {
                throw new ArgumentException(
                    $"The {kind} {ExceptionText.Quote(name)} (unit {ExceptionText.Quote(unit)}) would export as {ExceptionText.Quote(exportedName)}, which the {holder.GetType().Name} {ExceptionText.Quote(holder.Name)} (unit {ExceptionText.Quote(holder.Unit)}) already exports; two instruments must not meet after Prometheus sanitizing and suffixes.",
                    nameof(name));
            }
        }

        foreach ((bool withSuffixes, EscapingScheme scheme, Dictionary<string, Instrument> names) in _translatedNames)
        {
            foreach (string exportedName in family.In(withSuffixes, scheme).ReservedNames)
            {
                if (names.TryGetValue(exportedName, out Instrument? holder))
                {
                    throw TranslatedNameTaken($"The {kind} {ExceptionText.Quote(name)} (unit {ExceptionText.Quote(unit)})", exportedName, withSuffixes, scheme, holder, nameof(name));
                }
            }
        }
    }

    /// <summary>
    /// From now on, also reserves every instrument's exported names under the UTF-8 translation
    /// <paramref name="withSuffixes"/> names (<see cref="ExportedFamily.In"/>) and each escaping
    /// scheme a scrape may ask for, those of <paramref name="instruments"/> (the registry's) first:
    /// an exporter that writes that translation calls it, so that no two of its families are ever
    /// one family to Prometheus, whatever the scraper negotiates. Idempotent.
    /// </summary>
    /// <param name="withSuffixes">The translation: with the unit and type suffixes, or without.</param>
    /// <param name="instruments">The instruments the registry holds, in creation order.</param>
    /// <param name="parameterName">The exporter's parameter that chose the translation, named in the exception.</param>
    /// <exception cref="ArgumentException">Two of <paramref name="instruments"/> would export alike under it (the message names both); nothing is reserved then.</exception>
    public void ReserveTranslation(bool withSuffixes, IEnumerable<Instrument> instruments, string parameterName)
    {
        if (_translatedNames.Exists(t => t.WithSuffixes == withSuffixes))
        {
            return;
        }

        var added = new List<(bool, EscapingScheme, Dictionary<string, Instrument>)>();
        foreach (EscapingScheme scheme in s_translatedSchemes)
        {
            var names = new Dictionary<string, Instrument>(StringComparer.Ordinal);
            foreach (Instrument instrument in instruments)
            {
                foreach (string exportedName in ExportedFamily.For(instrument).In(withSuffixes, scheme).ReservedNames)
                {
                    if (!names.TryAdd(exportedName, instrument) && !ReferenceEquals(names[exportedName], instrument))
                    {
                        throw TranslatedNameTaken($"The {instrument.GetType().Name} {ExceptionText.Quote(instrument.Name)} (unit {ExceptionText.Quote(instrument.Unit)})", exportedName, withSuffixes, scheme, names[exportedName], parameterName);
                    }
                }
            }

            added.Add((withSuffixes, scheme, names));
        }

        _translatedNames.AddRange(added);
    }

    /// <summary>Gives <paramref name="instrument"/> every name of <paramref name="family"/>, which <see cref="ThrowIfTaken"/> found free.</summary>
    public void Reserve(Instrument instrument, ExportedFamily family)
    {
        foreach (string instrumentName in family.InstrumentNames)
        {
            _instrumentNames.Add(instrumentName, instrument);
        }

        foreach (string exportedName in family.ReservedNames)
        {
            _exportedNames.Add(exportedName, instrument);
        }

        foreach ((bool withSuffixes, EscapingScheme scheme, Dictionary<string, Instrument> names) in _translatedNames)
        {
            foreach (string exportedName in family.In(withSuffixes, scheme).ReservedNames)
            {
                names.Add(exportedName, instrument);
            }
        }
    }

    private static ArgumentException TranslatedNameTaken(string what, string exportedName, bool withSuffixes, EscapingScheme scheme, Instrument holder, string parameterName) => new(
        $"{what} would export as {ExceptionText.Quote(exportedName)} under the name translation {(withSuffixes ? "NoUTF8EscapingWithSuffixes" : "NoTranslation")} when a scraper asks for escaping={EscapingNames.Of(scheme)}, which the {holder.GetType().Name} {ExceptionText.Quote(holder.Name)} (unit {ExceptionText.Quote(holder.Unit)}) already exports so; two instruments must not be one family to Prometheus under any escaping a scrape negotiates.",
        parameterName);

    // Names every scrape writes itself, for the resource: target_info in text 0.0.4 and protobuf,
    // and in OpenMetrics the info family target with its sample target_info. An instrument under
    // either would write a second family of that name beside it, which a strict parser rejects.
    private static bool IsWrittenByTheExposition(string exportedName) =>
        exportedName is ExportedNames.TargetInfoName or ExportedNames.TargetInfoFamilyName;

    /// <summary>The error for an instrument name <paramref name="name"/> held by <paramref name="holder"/>.</summary>
    public static ArgumentException NameTaken(string name, Instrument holder) => new(
        $"The name {ExceptionText.Quote(name)} is taken by the {holder.GetType().Name} {ExceptionText.Quote(holder.Name)} (unit {ExceptionText.Quote(holder.Unit)}); names are unique per registry, case-insensitively, and an {nameof(OperationData)} also takes its name followed by '{PublishedInstrument.CountSuffix}'.",
        nameof(name));
}
