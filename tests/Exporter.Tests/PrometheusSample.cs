using System.Globalization;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>One sample line of a scrape: name, labels (unescaped) and the value as written.</summary>
public sealed record PrometheusSample(string Name, IReadOnlyDictionary<string, string> Labels, string Value)
{
    public double NumericValue => Value switch
    {
        "+Inf" => double.PositiveInfinity,
        "-Inf" => double.NegativeInfinity,
        _ => double.Parse(Value, CultureInfo.InvariantCulture),
    };
}
