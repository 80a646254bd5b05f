using System.Runtime.CompilerServices;

namespace ScalableMetrics.SeriesTables;

/// <summary>
/// The start of each series made after a removal of its instrument: a new series of a removed
/// one's tags counts from zero, so its cumulative values start at its creation, not at the
/// instrument's (OpenMetrics' <c>_created</c>, OTLP's start time). Every other series starts with
/// its instrument (<see cref="Instrument.CreatedAt"/>), as before removal existed.
/// </summary>
/// <remarks>
/// Kept beside the series rather than in it, so that a series is no larger (see the flags of
/// <see cref="Series"/>), in a <see cref="ConditionalWeakTable{TKey, TValue}"/>, which does not
/// keep a removed series alive. A read looks a series up only once some series has a start of its
/// own. Thread-safe.
/// </remarks>
internal static class SeriesStartTimes
{
    private static readonly ConditionalWeakTable<Series, StrongBox<DateTimeOffset>> s_starts = [];
    private static volatile bool s_any;

    /// <summary>Gives <paramref name="series"/>, made now, a start of its own: now.</summary>
    public static void StartNow(Series series)
    {
        s_starts.AddOrUpdate(series, new StrongBox<DateTimeOffset>(DateTimeOffset.UtcNow));
        s_any = true;
    }

    /// <summary>The start of <paramref name="series"/> where it has one of its own; else null.</summary>
    public static DateTimeOffset? Of(Series series) =>
        s_any && s_starts.TryGetValue(series, out StrongBox<DateTimeOffset>? start) ? start.Value : null;
}
