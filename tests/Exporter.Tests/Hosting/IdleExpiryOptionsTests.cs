using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace ScalableMetrics.Exporter.Tests.Hosting;

/// <summary>Idle expiry from the <c>ScalableMetrics:Registry</c> section: bound, and refused below 1 before the host starts.</summary>
public class IdleExpiryOptionsTests
{
    [Fact]
    public void IdleExpiryIsBoundFromConfigurationAndBelowOneIsInvalid()
    {
        IConfiguration configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["ScalableMetrics:Registry:RemoveSeriesIdleForCollections"] = "5",
        }).Build();
        var services = new ServiceCollection();
        services.AddOptions<ScalableMetricsOptions>().Bind(configuration.GetSection("ScalableMetrics"));
        using ServiceProvider provider = services.BuildServiceProvider();
        Assert.Equal(5, provider.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value.Registry.RemoveSeriesIdleForCollections);

        var invalid = new ScalableMetricsOptions();
        invalid.Registry.RemoveSeriesIdleForCollections = 0;
        ValidateOptionsResult result = new ScalableMetrics.Exporter.Hosting.ScalableMetricsOptionsValidator().Validate(null, invalid);
        Assert.True(result.Failed);
        Assert.Contains("Registry:RemoveSeriesIdleForCollections", result.FailureMessage, StringComparison.Ordinal);
        Assert.True(new ScalableMetrics.Exporter.Hosting.ScalableMetricsOptionsValidator().Validate(null, new ScalableMetricsOptions()).Succeeded);
    }
}
