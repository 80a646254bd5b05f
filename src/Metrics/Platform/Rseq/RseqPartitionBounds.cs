namespace ScalableMetrics.Platform.Rseq;

/// <summary>
/// Which id picks a restartable add's region, and how many regions it needs: one per processor
/// the process may run on (<see cref="ProcessorSet"/>), whatever the ids of those processors, then
/// the overflow region. A pure function of the reading, so that tests can state the policy case by
/// case with any affinity mask.
/// </summary>
/// <remarks>
/// <para>Three ways, by cost of the add:</para>
/// <list type="bullet">
/// <item><c>cpu_id</c> as the region, where the allowed processors are 0 to k - 1 (a whole
/// machine, or a cpuset from 0): no lookup, and each region stays with its processor (and its cache).</item>
/// <item><c>mm_cid</c> otherwise, where the kernel fills it (Linux 6.3+): the kernel numbers the
/// process's running threads densely, below the processors it may run on (<c>mm->nr_cpus_allowed</c>
/// since 6.13; on 6.3 to 6.12 in practice below the processors it ran on), so k processors with any
/// ids need k regions, with no lookup.</item>
/// <item><c>cpu_id</c> through a map otherwise (kernels without <c>mm_cid</c>, such as 5.14 and 5.15,
/// or where <see cref="RestartableSequence.PreferCpuIdSwitchName"/> asks for it): the add reads its
/// region from a dense table of the allowed processors inside the sequence
/// (<see cref="RestartableAddEncoder"/>), so a cpuset of CPUs 184 to 191 gets 8 regions, not 192.</item>
/// </list>
/// <para>The map gives each allowed processor a region of its own, in region order (socket, core,
/// id); no two processors share one, since the add is a plain add. A processor outside the map (brought
/// online after start, or allowed later: <c>sched_getaffinity</c> leaves offline processors out)
/// and an <c>mm_cid</c> past the regions have none: their adds go to the overflow region, atomically,
/// and are counted (<see cref="Cells.OverflowRegionAdds"/>). Thread-safe; pure.</para>
/// </remarks>
internal static class RseqPartitionBounds
{
    /// <summary>The value of a map entry for a processor with no region.</summary>
    public const ushort NoRegion = ushort.MaxValue;

    /// <summary>Chooses the id field, the regions and the map for <paramref name="processors"/>.</summary>
    /// <param name="processors">The processors the process may run on, read once.</param>
    /// <param name="kernelFillsMmCid">Whether the kernel fills <c>mm_cid</c> (<see cref="RseqArea.KernelFillsMmCid"/>).</param>
    /// <param name="preferCpuId">Whether <c>cpu_id</c> is asked for even where <c>mm_cid</c> would need no map.</param>
    /// <returns>The choice, with the reason in words.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="processors"/> is null.</exception>
    public static RseqRegionPlan Choose(ProcessorSet processors, bool kernelFillsMmCid, bool preferCpuId)
    {
        ArgumentNullException.ThrowIfNull(processors);
        int count = processors.Count;
        string where = processors.Describe();
        const string Outside = "an id outside them (a processor brought online or allowed after start) adds atomically to the overflow region";
        if (!processors.IsKnown || processors.IsDenseFromZero)
        {
            return new RseqRegionPlan(RseqIdField.CpuId, count, null, $"{count} regions by cpu_id, processor i writing region i, for {where}; {Outside}.");
        }

        if (kernelFillsMmCid && !preferCpuId)
        {
            return new RseqRegionPlan(RseqIdField.MmCid, count, null, $"{count} regions by mm_cid (the kernel's dense id), for {where}; {Outside}.");
        }

        ushort[] regionOf = new ushort[processors.Allowed[^1] + 1];
        regionOf.AsSpan().Fill(NoRegion);
        for (int region = 0; region < processors.Ordered.Count; region++)
        {
            regionOf[processors.Ordered[region]] = (ushort)region;
        }

        string why = kernelFillsMmCid ? $"{RestartableSequence.PreferCpuIdSwitchName} is set" : "the kernel fills no mm_cid";
        return new RseqRegionPlan(RseqIdField.CpuId, count, regionOf, $"{count} regions by cpu_id through a map of the allowed processors ({why}), for {where}; {Outside}.");
    }
}
