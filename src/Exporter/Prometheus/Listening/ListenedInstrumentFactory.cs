using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Globalization;
using Microsoft.Extensions.Logging;
using ScalableMetrics.Naming;
using SdmInstrument = System.Diagnostics.Metrics.Instrument;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// Creates, for a System.Diagnostics.Metrics instrument, the registry instrument of the same
/// kind, name, unit and description, and the listener state that records into it.
/// </summary>
internal static class ListenedInstrumentFactory
{
    /// <summary>The listener state of <paramref name="source"/>, recording into <paramref name="scope"/>'s registry, or null for a kind the registry does not have.</summary>
    /// <param name="source">The System.Diagnostics.Metrics instrument.</param>
    /// <param name="scope">The registry of its meter's name and version.</param>
    /// <param name="drops">Where refused measurements are counted.</param>
    /// <param name="logger">Where an observable instrument's group logs the failures of its callbacks
    /// that leave its other callbacks' reports in place (<see cref="ListenedObservable"/>).</param>
    /// <param name="pull">For an observable instrument, the listener source that observes it
    /// (<see cref="ObservablePull"/>); null for a listener of its group's own.</param>
    /// <exception cref="ArgumentException">The registry refuses the name, or a name taken by another kind (never the unit: <see cref="UnitOf"/>).</exception>
    /// <exception cref="InvalidOperationException">The registry holds its most instruments.</exception>
    /// <remarks>An observable instrument whose name the scope's registry already has as an
    /// observable instrument of the same kind, value type and unit joins that one (<see cref="ListenedObservable"/>).</remarks>
    public static ListenedInstrument? Create(SdmInstrument source, ListenedScope scope, ListenerDrops drops, ILogger logger, ObservablePull? pull = null)
    {
        if (ListenedType.Of(source) is not { } type)
        {
            return null;
        }

        MetricRegistry registry = scope.Registry;
        bool floating = type.IsFloatingPoint;
        string name = source.Name;
        string? unit = UnitOf(source);
        string? description = source.Description;
        KeyValuePair<string, object?>[] tags = SourceTags(source);

        if (type.IsObservable)
        {
            // Under the scope's lock: two meters of the scope may publish one name at once.
            lock (scope.Observables)
            {
                return CreateObservable(source, scope, drops, logger, pull, type, tags);
            }
        }

        return type.Kind switch
        {
            ListenedKind.Counter => floating
                ? new ListenedDoubleCounter(registry.CreateDoubleCounter(name, unit, description), tags, drops)
                : new ListenedCounter(registry.CreateCounter(name, unit, description), tags, drops),
            ListenedKind.UpDownCounter => floating
                ? new ListenedDoubleUpDownCounter(registry.CreateDoubleUpDownCounter(name, unit, description), tags, drops)
                : new ListenedUpDownCounter(registry.CreateUpDownCounter(name, unit, description), tags, drops),
            ListenedKind.Histogram => registry.ViewOf(name) is { Exponential: true } view
                ? new ListenedExponentialHistogram(registry.CreateExponentialHistogram(name, unit, description, view.Scale ?? PartitionedExponentialHistogram.DefaultScale, maxBuckets: view.MaxBuckets ?? PartitionedExponentialHistogram.DefaultMaxBuckets), tags, drops)
                : CreateListenedHistogram(source, registry, name, unit, description, tags, drops),
            ListenedKind.Gauge => floating
                ? new ListenedDoubleGauge(registry.CreateDoubleGauge(name, unit, description), tags, drops)
                : new ListenedGauge(registry.CreateGauge(name, unit, description), tags, drops),
            _ => throw new UnreachableException($"{type.Kind} is observable."),
        };
    }

    /// <summary>
    /// The unit <paramref name="source"/> is recorded and exported with: its own where the registry
    /// takes it (OpenTelemetry's unit syntax: at most 63 ASCII characters); else, as the listener
    /// cannot refuse someone else's instrument and OpenTelemetry takes any unit, each character
    /// outside ASCII as <c>_</c> (<c>°C</c> as <c>_C</c>, whose name suffix is the <c>C</c> that
    /// OpenTelemetry's Prometheus exporter writes for <c>°C</c>), or no unit where it is still too
    /// long (the specification's Prometheus mapping omits a unit it cannot convert).
    /// </summary>
    /// <param name="source">The System.Diagnostics.Metrics instrument.</param>
    /// <returns>A unit the registry takes, or null.</returns>
    public static string? UnitOf(SdmInstrument source)
    {
        string? unit = source.Unit;
        if (unit is null || (unit.Length <= InstrumentNames.MaxUnitLength && unit.All(char.IsAscii)))
        {
            return unit;
        }

        return unit.Length > InstrumentNames.MaxUnitLength
            ? null
            : string.Create(unit.Length, unit, static (chars, given) =>
            {
                for (int i = 0; i < chars.Length; i++)
                {
                    chars[i] = char.IsAscii(given[i]) ? given[i] : '_';
                }
            });
    }

    // An observable instrument joins the registry's observable of its name where it fits; else the
    // registry creates one (or refuses the name, as for any other instrument).
    private static ListenedInstrument CreateObservable(SdmInstrument source, ListenedScope scope, ListenerDrops drops, ILogger logger, ObservablePull? pull, ListenedType type, KeyValuePair<string, object?>[] tags)
    {
        MetricRegistry registry = scope.Registry;
        string name = source.Name;
        string? unit = UnitOf(source);
        string? description = source.Description;
        if (scope.Observables.TryGetValue(name, out ListenedObservable? existing) && existing.Fits(source))
        {
            return existing.Join(source, tags, drops);
        }

        bool floating = type.IsFloatingPoint;
        var observable = new ListenedObservable(source, pull, logger, group => type.Kind switch
        {
            ListenedKind.ObservableCounter => floating ? registry.CreateObservableCounter(name, group.ObserveDoubles, unit, description) : registry.CreateObservableCounter(name, group.ObserveLongs, unit, description),
            ListenedKind.ObservableUpDownCounter => floating ? registry.CreateObservableUpDownCounter(name, group.ObserveDoubles, unit, description) : registry.CreateObservableUpDownCounter(name, group.ObserveLongs, unit, description),
            _ => floating ? registry.CreateObservableGauge(name, group.ObserveDoubles, unit, description) : registry.CreateObservableGauge(name, group.ObserveLongs, unit, description),
        });

        scope.Observables[name] = observable;
        return observable.Join(source, tags, drops);
    }

    // The histogram of its advised boundaries where the registry takes them; for a Histogram<float>
    // that has them and advised a boundary a cast widens, those as floats (ListenedHistogram).
    private static ListenedHistogram CreateListenedHistogram(SdmInstrument source, MetricRegistry registry, string name, string? unit, string? description, KeyValuePair<string, object?>[] tags, ListenerDrops drops)
    {
        double[]? advised = AdvisedBoundaries(source);
        PartitionedHistogram histogram = CreateHistogram(registry, name, unit, description, advised);
        float[]? floatBoundaries = source is Histogram<float> { Advice.HistogramBucketBoundaries: { } floats }
            && advised is not null && histogram.Boundaries.SequenceEqual(advised)
            && floats.Any(f => (double)f != ShortestDouble(f))
            ? [.. floats.Where(f => !float.IsInfinity(f))]
            : null;
        return new ListenedHistogram(histogram, tags, drops, floatBoundaries);
    }

    // Advice the registry refuses (a NaN, more than 256 boundaries, none once the infinite ones are
    // left out) is ignored for the default boundaries. OpenTelemetry exports advice of none as a
    // histogram of no bucket at all (only _sum and _count), which a registry histogram, of at least
    // one boundary, cannot be: the default boundaries keep its sum and count (docs/listening.md).
    private static PartitionedHistogram CreateHistogram(MetricRegistry registry, string name, string? unit, string? description, double[]? advised)
    {
        if (advised is not null)
        {
            try
            {
                return registry.CreateHistogram(name, unit, description, advised);
            }
            catch (ArgumentException e) when (e.ParamName == "boundaries")
            {
                // The default below; a histogram of this name with other boundaries throws there.
            }
        }

        return registry.CreateHistogram(name, unit, description);
    }

    // The instrument's own tags, then its meter's (OpenTelemetry's scope attributes): a key both
    // have keeps the instrument's value, as the more specific. A tag whose value is null is left
    // out, as if it were not given (as a measured one is, TagScratch): refused, it would drop
    // every measurement of the instrument.
    private static KeyValuePair<string, object?>[] SourceTags(SdmInstrument source)
    {
        var tags = new List<KeyValuePair<string, object?>>();
        foreach (KeyValuePair<string, object?> tag in (source.Tags ?? []).Concat(source.Meter.Tags ?? []))
        {
            if (tag.Value is not null && !tags.Exists(t => string.Equals(t.Key, tag.Key, StringComparison.Ordinal)))
            {
                tags.Add(tag);
            }
        }

        return [.. tags];
    }

    // InstrumentAdvice<T>.HistogramBucketBoundaries, as doubles, less an infinite one (the advice's
    // first, -∞, or last, +∞: it is sorted), which OpenTelemetry leaves out too, as the first and
    // last buckets reach -∞ and +∞ already; null (the default boundaries) where none were advised.
    // A float boundary is the double of its shortest round-trip decimal (0.1f as 0.1, where a cast
    // gives 0.10000000149011612), the boundary OpenTelemetry exports (its display bounds, for
    // Histogram<float> only); a decimal one the double nearest its exact value (the cast divides in
    // doubles, which can round twice; OpenTelemetry takes no decimal instrument). An integer's cast
    // is the nearest double already.
    private static double[]? AdvisedBoundaries(SdmInstrument source) => AdvisedOrInfinite(source)?.Where(b => !double.IsInfinity(b)).ToArray();

    private static IEnumerable<double>? AdvisedOrInfinite(SdmInstrument source) => source switch
    {
        Histogram<byte> h => h.Advice?.HistogramBucketBoundaries?.Select(b => (double)b),
        Histogram<short> h => h.Advice?.HistogramBucketBoundaries?.Select(b => (double)b),
        Histogram<int> h => h.Advice?.HistogramBucketBoundaries?.Select(b => (double)b),
        Histogram<long> h => h.Advice?.HistogramBucketBoundaries?.Select(b => (double)b),
        Histogram<float> h => h.Advice?.HistogramBucketBoundaries?.Select(ShortestDouble),
        Histogram<double> h => h.Advice?.HistogramBucketBoundaries,
        Histogram<decimal> h => h.Advice?.HistogramBucketBoundaries?.Select(b => double.Parse(b.ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture)),
        _ => null,
    };

    // The double of a float's shortest round-trip decimal, which rounds back to the float (checked;
    // else the float's own value); an infinite or NaN float as it is.
    private static double ShortestDouble(float value)
    {
        if (!float.IsFinite(value))
        {
            return value;
        }

        double shortest = double.Parse(value.ToString("R", CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);
        return (float)shortest == value ? shortest : value;
    }
}
