using ScalableMetrics.Tests.JitListings;

namespace ScalableMetrics.Tests;

/// <summary>
/// The test assembly's entry point, in place of the empty one Microsoft.NET.Test.Sdk generates:
/// the test runner never calls it; a test that needs a process of its own, with runtime settings
/// of its own, starts this assembly with a verb.
/// </summary>
public static class Program
{
    public static int Main(string[] args) => args switch
    {
        [BoundAddChild.Verb, string writePath] => BoundAddChild.Run(writePath),
        [Cells.OverflowRegionChild.Verb, string preferCpuId, string target] => Cells.OverflowRegionChild.Run(bool.Parse(preferCpuId), int.Parse(target, System.Globalization.CultureInfo.InvariantCulture)),
        [Cells.OverflowRegionChild.SparePartitionsVerb, string preferCpuId, string target] => Cells.OverflowRegionChild.RunWithSparePartitions(bool.Parse(preferCpuId), int.Parse(target, System.Globalization.CultureInfo.InvariantCulture)),
        [Cells.OverflowRegionChild.PromotionVerb, string preferCpuId, string target] => Cells.OverflowRegionChild.RunPromotingMidway(bool.Parse(preferCpuId), int.Parse(target, System.Globalization.CultureInfo.InvariantCulture)),
        _ => 0,
    };
}
