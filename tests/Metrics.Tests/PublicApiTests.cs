using ScalableMetrics.Tests.Shared;
using ScalableMetrics.SeriesTables;

namespace ScalableMetrics.Tests;

/// <summary>The core's public surface is the checked-in <c>src/Metrics/PublicAPI.txt</c>: a change to it is a reviewed change to that file.</summary>
public class PublicApiTests
{
    [Fact]
    public void PublicApiMatchesTheCheckedInFile() =>
        PublicApiListing.AssertMatches(typeof(MetricRegistry).Assembly, "src/Metrics/PublicAPI.txt");

    [Fact]
    public void TheListingSeesAPublicMemberAndNotAnInternalOne()
    {
        IReadOnlyList<string> lines = PublicApiListing.List(typeof(MetricRegistry).Assembly);
        Assert.Contains(lines, line => line.StartsWith("ScalableMetrics.MetricRegistry.CreateCounter(System.String name", StringComparison.Ordinal) && line.EndsWith(" -> ScalableMetrics.PartitionedCounter", StringComparison.Ordinal));
        Assert.DoesNotContain(lines, line => line.Contains("SeriesTable", StringComparison.Ordinal));
    }
}
