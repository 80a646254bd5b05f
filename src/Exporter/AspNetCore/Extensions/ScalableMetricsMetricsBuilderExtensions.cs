using Microsoft.Extensions.DependencyInjection.Extensions;
using ScalableMetrics.Exporter;

namespace Microsoft.Extensions.Diagnostics.Metrics;

/// <summary>Adds ScalableMetrics to .NET's metrics configuration (<c>builder.Metrics</c>).</summary>
public static class ScalableMetricsMetricsBuilderExtensions
{
    /// <summary>
    /// Registers ScalableMetrics (as <see cref="ScalableMetricsServiceCollectionExtensions.AddScalableMetrics(IServiceCollection)"/>
    /// does; nothing twice) and its <see cref="ScalableMetricsListener"/>, so that the instruments
    /// .NET's rules enable for it (<c>builder.Metrics.EnableMetrics(...)</c>, the <c>Metrics</c>
    /// configuration section) are recorded and scraped.
    /// </summary>
    /// <param name="builder">The metrics builder, e.g. <c>builder.Metrics</c> of a host application builder.</param>
    /// <returns><paramref name="builder"/>, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="builder"/> is null.</exception>
    /// <remarks>Calling it twice adds nothing twice. Nothing is recorded until a rule enables it, as with every listener of .NET's. The
    /// options are not bound from configuration here: <c>builder.AddScalableMetrics()</c> on the
    /// host application builder binds the <c>ScalableMetrics</c> section, before or after this call.</remarks>
    public static IMetricsBuilder AddScalableMetrics(this IMetricsBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.Services.AddScalableMetrics();
        builder.Services.TryAddEnumerable(ServiceDescriptor.Singleton<IMetricsListener, ScalableMetricsListener>());
        return builder;
    }
}
