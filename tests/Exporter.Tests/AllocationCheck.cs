namespace ScalableMetrics.Exporter.Tests;

/// <summary>Zero allocation, asserted as tests/Metrics.Tests' AllocationAssert (after ZeroLog's GcTester): the thread's allocated bytes around the call, after a warm-up.</summary>
internal static class AllocationCheck
{
    public static void DoesNotAllocate(Action action)
    {
        // Warm up: create the series and the thread's slots, and let tiered compilation settle.
        for (int i = 0; i < 1_000; i++)
        {
            action();
        }

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 10_000; i++)
        {
            action();
        }

        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.True(allocated == 0, $"{allocated} bytes were allocated in 10,000 calls.");
    }
}
