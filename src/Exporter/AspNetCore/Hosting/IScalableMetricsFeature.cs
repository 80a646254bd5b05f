namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// A part another ScalableMetrics package adds to what <c>AddScalableMetrics</c> builds, turned on
/// from the options (the OpenTelemetry bridge: <c>UseOpenTelemetry()</c>), so that this package
/// needs none of that package's dependencies. Held in <see cref="ScalableMetricsOptions.GetFeatures"/>,
/// one per kind.
/// </summary>
/// <remarks>
/// The options are where a feature is turned on because <c>AddScalableMetrics(o =&gt; ...)</c> is
/// the one call users make: the options run when the container is built, too late to add services,
/// so each feature builds its part itself, once per container (<see cref="ScalableMetricsParts"/>).
/// </remarks>
internal interface IScalableMetricsFeature
{
    /// <summary>Builds the feature's part for one container; called once, when the scraper or the host first needs it.</summary>
    /// <param name="services">The container, to resolve the registry, the options, loggers.</param>
    IScalableMetricsPart Build(IServiceProvider services);

    /// <summary>Whether the feature publishes the registry's instruments on the meter of
    /// <see cref="ScalableMetricsOptions.MeterName"/> itself (the OpenTelemetry bridge does), so that
    /// the host does not publish them a second time (<see cref="ScalableMetricsOptions.PublishToMeterListeners"/>).</summary>
    bool PublishesRegistryMeter => false;
}
