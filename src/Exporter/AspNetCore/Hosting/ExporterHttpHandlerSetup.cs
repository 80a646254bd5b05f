using Microsoft.Extensions.Http;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// Hands the primary handler of the exporter's client (<see cref="ExporterHttpClient.Name"/>) to each
/// part (<see cref="IScalableMetricsPart.ConfigureHttpHandler"/>: a push exporter's certificates)
/// once every configuration of the client has chosen it.
/// </summary>
/// <remarks>
/// The client's builder actions run in the order they were registered, and an application's
/// <c>ConfigurePrimaryHttpMessageHandler(() => new SocketsHttpHandler { ... })</c> after
/// <c>AddScalableMetrics</c> (as it would add a proxy) replaces the handler an earlier action set
/// the certificates on, dropping the private CA and the client certificate without a word. A
/// post-configuration runs after every configuration, so its action, added last, sees the handler
/// the client is built with, whatever the order of registration. Registered once, however many
/// times <c>AddScalableMetrics</c> is called.
/// </remarks>
internal sealed class ExporterHttpHandlerSetup : IPostConfigureOptions<HttpClientFactoryOptions>
{
    /// <inheritdoc/>
    public void PostConfigure(string? name, HttpClientFactoryOptions options)
    {
        if (name != ExporterHttpClient.Name)
        {
            return;
        }

        options.HttpMessageHandlerBuilderActions.Add(static builder =>
        {
            foreach (IScalableMetricsPart part in builder.Services.GetRequiredService<ScalableMetricsParts>().Parts)
            {
                part.ConfigureHttpHandler(builder.PrimaryHandler);
            }
        });
    }
}
