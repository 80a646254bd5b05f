using Microsoft.Extensions.DependencyInjection;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// Each exporter package's public surface is its checked-in <c>PublicAPI.txt</c>: a change to it
/// is a reviewed change to that file.
/// </summary>
public class PublicApiTests
{
    [Fact]
    public void The_Prometheus_packages_public_API_matches_its_checked_in_file() =>
        PublicApiListing.AssertMatches(typeof(PrometheusScraper).Assembly, "src/Exporter/Prometheus/PublicAPI.txt");

    [Fact]
    public void The_AspNetCore_packages_public_API_matches_its_checked_in_file() =>
        PublicApiListing.AssertMatches(typeof(ScalableMetricsOptions).Assembly, "src/Exporter/AspNetCore/PublicAPI.txt");

    [Fact]
    public void The_OpenTelemetry_packages_public_API_matches_its_checked_in_file() =>
        PublicApiListing.AssertMatches(typeof(ScalableMetricsOpenTelemetryOptionsExtensions).Assembly, "src/Exporter/OpenTelemetry/PublicAPI.txt");
}
