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

        // Up to three rounds, one of which must allocate nothing: a one-off allocation of the
        // runtime's (seen once in a full run, with other test classes starting listeners and
        // providers beside this one) passes, while an allocation per call fails every round.
        long allocated = 0;
        for (int round = 0; round < 3; round++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < 10_000; i++)
            {
                action();
            }

            allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            if (allocated == 0)
            {
                return;
            }
        }

        Assert.Fail($"{allocated} bytes were allocated in 10,000 calls, in each of three rounds.");
    }
}
