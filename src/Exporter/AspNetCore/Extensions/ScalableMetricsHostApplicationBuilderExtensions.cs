using ScalableMetrics.Exporter;
using ScalableMetrics.Exporter.Hosting;

namespace Microsoft.Extensions.Hosting;

/// <summary>Adds ScalableMetrics to a host application builder (a <c>WebApplicationBuilder</c>, a <c>HostApplicationBuilder</c>).</summary>
public static class ScalableMetricsHostApplicationBuilderExtensions
{
    /// <summary>The configuration section the options are bound from: <c>ScalableMetrics</c>.</summary>
    public const string ConfigurationSectionName = "ScalableMetrics";

    /// <summary>
    /// Registers ScalableMetrics in <paramref name="builder"/>'s services (see
    /// <see cref="ScalableMetricsServiceCollectionExtensions.AddScalableMetrics(IServiceCollection)"/>),
    /// with its options bound from the configuration section <see cref="ConfigurationSectionName"/>.
    /// </summary>
    /// <typeparam name="TBuilder">The builder's type, returned for chaining.</typeparam>
    /// <param name="builder">The host application builder.</param>
    /// <returns><paramref name="builder"/>, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="builder"/> is null.</exception>
    public static TBuilder AddScalableMetrics<TBuilder>(this TBuilder builder)
        where TBuilder : IHostApplicationBuilder =>
        AddScalableMetrics(builder, configure: null);

    /// <summary>
    /// Registers ScalableMetrics in <paramref name="builder"/>'s services, with its options bound
    /// from the configuration section <see cref="ConfigurationSectionName"/>, then configured by
    /// <paramref name="configure"/>.
    /// </summary>
    /// <typeparam name="TBuilder">The builder's type, returned for chaining.</typeparam>
    /// <param name="builder">The host application builder.</param>
    /// <param name="configure">Configures the options after the configuration is bound. Null to leave them be.</param>
    /// <remarks>Calling it again binds the section no second time (so <see cref="ScalableMetricsOptions.Meters"/>
    /// and the registry's views name each entry once); each call's <paramref name="configure"/> runs.</remarks>
    /// <returns><paramref name="builder"/>, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="builder"/> is null.</exception>
    public static TBuilder AddScalableMetrics<TBuilder>(this TBuilder builder, Action<ScalableMetricsOptions>? configure)
        where TBuilder : IHostApplicationBuilder
    {
        ArgumentNullException.ThrowIfNull(builder);
        IConfigurationSection section = builder.Configuration.GetSection(ConfigurationSectionName);

        // Bound once, however often this is called: binding appends to the lists (Meters, Views),
        // so a second binding would name each meter and view twice.
        if (!builder.Services.Any(static service => service.ServiceType == typeof(SectionBound)))
        {
            builder.Services.AddSingleton<SectionBound>();

            // The registry's settings directly under the section, the keys of the release before,
            // first: the Registry section's, bound next, win over them.
            builder.Services.AddOptions<ScalableMetricsOptions>()
                .Configure(options => LegacyRegistryKeys.Bind(section, options))
                .Bind(section);
        }

        builder.Services.AddScalableMetrics(configure);
        return builder;
    }

    // Registered with the section's binding: its presence says the section is bound already.
    private sealed class SectionBound;
}
