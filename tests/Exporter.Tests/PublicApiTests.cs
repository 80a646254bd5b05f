using Microsoft.Extensions.DependencyInjection;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// Each exporter package's public surface is its checked-in <c>PublicAPI.txt</c>: a change to it
/// is a reviewed change to that file.
/// </summary>
public class PublicApiTests
{
    [Fact]
    public void ThePrometheusPackagesPublicAPIMatchesItsCheckedInFile() =>
        PublicApiListing.AssertMatches(typeof(PrometheusScraper).Assembly, "src/Exporter/Prometheus/PublicAPI.txt");

    [Fact]
    public void TheAspNetCorePackagesPublicAPIMatchesItsCheckedInFile() =>
        PublicApiListing.AssertMatches(typeof(ScalableMetricsOptions).Assembly, "src/Exporter/AspNetCore/PublicAPI.txt");

    [Fact]
    public void TheOpenTelemetryPackagesPublicAPIMatchesItsCheckedInFile() =>
        PublicApiListing.AssertMatches(typeof(ScalableMetricsOpenTelemetryOptionsExtensions).Assembly, "src/Exporter/OpenTelemetry/PublicAPI.txt");
}
