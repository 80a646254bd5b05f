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
    public void DetectsAnAllocationThatOnlyTheMeasuredCallsMake()
    {
        // Nothing allocated during the warm-up: a checker that measured the warm-up, or nothing,
        // would pass this.
        int calls = 0;
        Assert.ThrowsAny<XunitException>(() => AllocationAssert.DoesNotAllocate(() =>
        {
            if (++calls > AllocationAssert.WarmUpCalls)
            {
                s_kept = new object();
            }
        }));
    }

    [Fact]
    public void PassesWhereOnlyTheFirstMeasuredRoundSeesAOneOffAllocation()
    {
        // The runtime's own one-off allocation on this thread (see AllocationAssert): a later
        // round, which does not see it, passes the check.
        int calls = 0;
        AllocationAssert.DoesNotAllocate(() =>
        {
            if (++calls == AllocationAssert.WarmUpCalls + 1)
            {
                s_kept = new byte[1];
            }
        });
        Assert.Equal(AllocationAssert.WarmUpCalls + (2 * AllocationAssert.CallsPerRound), calls);
    }

    [Fact]
    public void PassesWhereNothingIsAllocated()
    {
        long sum = 0;
        AllocationAssert.DoesNotAllocate(() => sum++);

        // Passed in its first measured round (11,000 calls): a second round would mean the first
        // saw bytes where the call allocates none (the checker's own bookkeeping inside the
        // measured window, say), which the retries would otherwise hide.
        Assert.Equal(11_000, sum);
        Assert.Equal(AllocationAssert.WarmUpCalls + AllocationAssert.CallsPerRound, sum);
    }
}
