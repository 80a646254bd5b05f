using System.Runtime.CompilerServices;
using ScalableMetrics.Diagnostics;

namespace ScalableMetrics.Tests.JitListings;

/// <summary>
/// A fact that compares the JIT's listing of the bound adds on one write path with the
/// checked-in one (<see cref="JitListing"/>); skipped, with the reason, in a build that is not
/// optimized, where the write path cannot be had, or where no listing names this runtime and the
/// processor's instruction sets, so that it never fails on a machine of another make (and says
/// how to add that make's listing).
/// </summary>
public sealed class JitListingFactAttribute : FactAttribute
{
    public JitListingFactAttribute(WritePath writePath, [CallerFilePath] string sourceFile = "")
    {
        Skip = JitListing.SkipReason(writePath, JitListing.FolderOf(sourceFile));
    }
}
