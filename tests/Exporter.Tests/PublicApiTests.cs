using ScalableMetrics.Tests.Shared;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>The exporter's public surface is the checked-in <c>src/Exporter/PublicAPI.txt</c>: a change to it is a reviewed change to that file.</summary>
public class PublicApiTests
{
    [Fact]
    public void PublicApiMatchesTheCheckedInFile() =>
        PublicApiListing.AssertMatches(typeof(MeterBridge).Assembly, "src/Exporter/PublicAPI.txt");
}
