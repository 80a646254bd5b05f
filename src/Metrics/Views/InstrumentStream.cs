using ScalableMetrics.Tags;

namespace ScalableMetrics.Views;

/// <summary>What an instrument is created with once its view (if any) is applied: the name it is
/// stored and exported under, its one series limit, its tag rules (with the view's kept keys) and
/// its exemplar filter.</summary>
/// <param name="Name">The name stored and exported.</param>
/// <param name="MaxSeries">Its series limit.</param>
/// <param name="TagLimits">Its tag rules and key filter.</param>
/// <param name="ExemplarFilter">Its exemplar filter, for the kinds that keep exemplars.</param>
internal sealed record InstrumentStream(string Name, int MaxSeries, TagLimits TagLimits, ExemplarFilter ExemplarFilter);
