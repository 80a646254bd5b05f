using Xunit.Sdk;

namespace ScalableMetrics.Tests;

/// <summary>The allocation check can fail (after ZeroLog's GcTesterTests): a check that never fails proves nothing.</summary>
public class AllocationAssertTests
{
    private static object? s_kept;

    [Fact]
    public void DetectsAnAllocation()
    {
        // Kept in a static, so that the JIT cannot drop the allocation.
        var e = Assert.ThrowsAny<XunitException>(() => AllocationAssert.DoesNotAllocate(() => s_kept = new object()));
        Assert.Contains("bytes were allocated", e.Message);
    }

    [Fact]
    public void DetectsOneSmallAllocationEveryFiveThousandCalls()
    {
        // Rare but recurring, as a hot path's occasional allocation is: every round sees it.
        int calls = 0;
        Assert.ThrowsAny<XunitException>(() => AllocationAssert.DoesNotAllocate(() =>
        {
            if (++calls % 5_000 == 0)
            {
                s_kept = new byte[1];
            }
        }));
    }

    [Fact]
    public void PassesWhereNothingIsAllocated()
    {
        long sum = 0;
        AllocationAssert.DoesNotAllocate(() => sum++);
        Assert.Equal(11_000, sum);
    }
}
