using System.Text;
using Microsoft.Extensions.DependencyInjection;
using ScalableMetrics.Exporter.Prometheus.Exposition;
using ScalableMetrics.Exporter.Prometheus.Sources;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Tests.Hosting;

/// <summary>
/// A scrape's sources are a list other packages add to: a source registered as a service is
/// written after the registry's families, in the scrape's format, and sees the names already taken.
/// </summary>
public sealed class ScrapeSourceServiceTests
{
    [Fact]
    public async Task ASourceRegisteredAsAServiceIsWrittenAfterTheRegistryWithItsNamesTaken()
    {
        var services = new ServiceCollection();
        services.AddSingleton<IScrapeSource, ExtraSource>();
        services.AddScalableMetrics();
        await using ServiceProvider provider = services.BuildServiceProvider(validateScopes: true);
        provider.GetRequiredService<MetricRegistry>().CreateCounter("registry.requests").Add(1);

        string text = Encoding.UTF8.GetString(await provider.GetRequiredService<PrometheusScraper>().ScrapeAsync());

        var source = (ExtraSource)provider.GetRequiredService<IScrapeSource>();
        Assert.Equal([PrometheusExpositionFormat.Text], source.Formats);
        Assert.True(source.SawRegistryName);
        Assert.True(text.IndexOf("# TYPE registry_requests_total counter", StringComparison.Ordinal) < text.IndexOf("# TYPE extra_family gauge", StringComparison.Ordinal));
    }

    private sealed class ExtraSource : IScrapeSource
    {
        public List<PrometheusExpositionFormat> Formats { get; } = [];

        public bool SawRegistryName { get; private set; }

        public ValueTask WriteAsync(ExpositionWriter output, HashSet<string> takenNames, CancellationToken cancellationToken)
        {
            Formats.Add(output.Format);
            SawRegistryName = takenNames.Contains("registry_requests_total");
            output.WriteHeader("extra_family", ExportedKind.Gauge, "A family of another package.");
            return ValueTask.CompletedTask;
        }
    }
}
