namespace ScalableMetrics.Naming;

/// <summary>
/// An instrument that a registry instrument is published as where an instrument carries one
/// number per series: an OpenTelemetry meter, which the exporter's <c>MeterBridge</c> publishes
/// the registry on. Every kind is published under its own name and unit, but two: a histogram is
/// not published (an observable instrument cannot carry buckets), and an
/// <see cref="OperationData"/>, whose series hold two numbers, is published as two counters: its
/// elapsed time under its own name (<see cref="OperationElapsed"/>) and its count under its name
/// followed by <see cref="CountSuffix"/> (<see cref="OperationCount"/>).
/// </summary>
/// <remarks>
/// Named here, below both the registry and the bridge, so that a registry refuses an instrument
/// whose published names would meet another's (<see cref="ExportedFamily.InstrumentNames"/>,
/// <see cref="ExportedFamily.ReservedNames"/>) whether or not a bridge is attached yet, and the
/// bridge publishes exactly the names the registry reserved.
/// </remarks>
/// <param name="Name">The published instrument's name.</param>
/// <param name="Unit">Its unit, or <see langword="null"/>.</param>
/// <param name="Kind">What a Prometheus exporter of the meter writes it as.</param>
internal readonly record struct PublishedInstrument(string Name, string? Unit, ExportedKind Kind)
{
    /// <summary>What an operation's count is published under after the operation's name: <c>.count</c>.</summary>
    public const string CountSuffix = ".count";

    /// <summary>The unit of an operation's published count: <c>{operation}</c>.</summary>
    public const string CountUnit = "{operation}";

    /// <summary>The names a Prometheus exporter of the meter writes the instrument under: its
    /// family name and its sample names (<see cref="ExportedFamily.Of"/>).</summary>
    public IEnumerable<string> ExportedNames
    {
        get
        {
            ExportedFamily family = ExportedFamily.Of(Name, Unit, Kind);
            return [family.Name, .. family.SampleNames];
        }
    }

    /// <summary>The counter an operation named <paramref name="operationName"/> publishes its total elapsed seconds as.</summary>
    public static PublishedInstrument OperationElapsed(string operationName) => new(operationName, OperationData.ElapsedUnit, ExportedKind.Counter);

    /// <summary>The counter an operation named <paramref name="operationName"/> publishes its count as: <c>x.count</c>, unit <see cref="CountUnit"/>.</summary>
    public static PublishedInstrument OperationCount(string operationName) => new(operationName + CountSuffix, CountUnit, ExportedKind.Counter);
}
