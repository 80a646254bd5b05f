using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ScalableMetrics.Platform.Rseq;

/// <summary>
/// Adds to the calling processor's region with a plain add, no atomic instruction, made safe by a
/// Linux restartable sequence (<c>rseq(2)</c>): if the thread is preempted, migrated or signalled
/// between reading its id and the add, the kernel restarts the sequence, so the add lands once,
/// in the region of the id it ran with.
/// </summary>
/// <remarks>
/// <para>At start this class encodes the function (<see cref="RestartableAddEncoder"/>, where its
/// listing is), places it in executable memory (<see cref="ExecutableMemory"/>) and self-tests it
/// (<see cref="RestartableAddFunction"/>). Until the self-test has passed,
/// <see cref="IsSupported"/> is <see langword="false"/> and <see cref="PartitionCount"/> is 1.
/// Then it does the same for the wrapping and the double add (<see cref="RestartableOperation"/>);
/// where one of them fails, its adds are refused (the reason is in
/// <see cref="WrappingAddUnavailableReason"/> or <see cref="DoubleAddUnavailableReason"/>) and go
/// to the overflow region, while the saturating add stays in use.</para>
/// <para>There is a region for each processor the process may run on at start
/// (<see cref="ProcessorSet.Current"/>, the reading the Interlocked path sizes by too), picked by
/// <c>cpu_id</c> where those are processors 0 to k - 1, else by <c>mm_cid</c> where the kernel fills
/// it (Linux 6.3+), else by <c>cpu_id</c> through a map inside the sequence
/// (<see cref="RseqPartitionBounds"/>). A thread whose id has no region (a processor brought online
/// or allowed after start) has its adds refused, and they go to the overflow region: correct, only
/// contended, and counted (<see cref="Cells.OverflowRegionAdds"/>). The area's <c>node_id</c> (6.3+)
/// could pick socket-local regions (one per NUMA node, each shared atomically), a middle ground
/// this class does not take.</para>
/// <para>Where any step is unavailable (not Linux, not x86-64, glibc older than 2.35 or musl, rseq
/// not registered, no executable memory, a failed self-test, or the switch
/// <see cref="DisableSwitchName"/> set), <see cref="IsSupported"/> is <see langword="false"/> and
/// the reason is in <see cref="UnsupportedReason"/>. All members are thread-safe.</para>
/// </remarks>
internal static unsafe class RestartableSequence
{
    /// <summary>
    /// The <see cref="AppContext"/> switch that turns restartable sequences off for the process
    /// (set it in <c>runtimeconfig.json</c> or with <see cref="AppContext.SetSwitch"/> before the
    /// first registry is created).
    /// </summary>
    public const string DisableSwitchName = "ScalableMetrics.DisableRestartableSequences";

    /// <summary>
    /// The <see cref="AppContext"/> switch that makes the restartable adds pick their region by
    /// <c>cpu_id</c> (through a map where the allowed processors are not 0 to k - 1) even where the
    /// kernel fills <c>mm_cid</c>: a diagnostic, to exercise on a new kernel the path older kernels
    /// take (the topology check, <c>scripts/many-cpu-guest.sh</c>, runs both). Set it as
    /// <see cref="DisableSwitchName"/>.
    /// </summary>
    public const string PreferCpuIdSwitchName = "ScalableMetrics.RestartableSequencesPreferCpuId";

    private static readonly delegate* unmanaged[Cdecl, SuppressGCTransition]<long*, nint, long, int> s_add;

    // Null where the wrapping or the double add could not be created: their adds are then refused,
    // and callers add to the overflow region (see WrappingAddUnavailableReason).
    private static readonly delegate* unmanaged[Cdecl, SuppressGCTransition]<long*, nint, long, int> s_addWrapping;
    private static readonly delegate* unmanaged[Cdecl, SuppressGCTransition]<long*, nint, double, int> s_addDouble;

    // Incremented by the function's abort path; native memory, since the function holds its address.
    private static readonly long* s_restarts = (long*)NativeMemory.AllocZeroed(sizeof(long));

    // Keep the functions' memory mapped for the process's life.
    private static readonly RestartableAddFunction? s_function;
    private static readonly RestartableAddFunction? s_wrappingFunction;
    private static readonly RestartableAddFunction? s_doubleFunction;

    static RestartableSequence()
    {
        PartitionCount = 1;
        UnsupportedReason = TryCreate(out s_function);
        WrappingAddUnavailableReason = DoubleAddUnavailableReason = UnsupportedReason;
        if (s_function is not null)
        {
            s_add = s_function.Add;
            Plan = s_function.Plan;
            IdField = s_function.IdField;
            PartitionCount = s_function.PartitionCount;
            IsSupported = true;

            // The same id field and partition count: the arenas have the regions of the saturating add.
            WrappingAddUnavailableReason = TryCreateAlongside(RestartableOperation.WrappingAdd, out s_wrappingFunction);
            DoubleAddUnavailableReason = TryCreateAlongside(RestartableOperation.DoubleAdd, out s_doubleFunction);
            if (s_wrappingFunction is not null)
            {
                s_addWrapping = s_wrappingFunction.Add;
            }

            if (s_doubleFunction is not null)
            {
                s_addDouble = s_doubleFunction.AddDouble;
            }
        }
    }

    /// <summary>Whether this process adds to per-processor regions through restartable sequences.</summary>
    public static bool IsSupported { get; }

    /// <summary>Why <see cref="IsSupported"/> is <see langword="false"/>; null where it is <see langword="true"/>.</summary>
    public static string? UnsupportedReason { get; }

    /// <summary>
    /// The number of regions the add indexes: every id a thread of the process can report at
    /// start is below it (see <see cref="RseqPartitionBounds"/>); 1 where <see cref="IsSupported"/>
    /// is <see langword="false"/>. Callers keep one more, the overflow region, at index
    /// <see cref="PartitionCount"/>.
    /// </summary>
    public static int PartitionCount { get; }

    /// <summary>How the adds pick their region, with the reason in words; null where <see cref="IsSupported"/> is <see langword="false"/>.</summary>
    public static RseqRegionPlan? Plan { get; }

    /// <summary>The id that picks the region (<see cref="RseqIdField.CpuId"/> where unsupported).</summary>
    public static RseqIdField IdField { get; }

    /// <summary>The address of the add's entry point; 0 where <see cref="IsSupported"/> is <see langword="false"/> (for tests and disassembly).</summary>
    internal static nint EntryAddress => (nint)s_add;

    /// <summary>The address of the wrapping add's entry point; 0 where it is unavailable (<see cref="WrappingAddUnavailableReason"/>).</summary>
    internal static nint WrappingEntryAddress => (nint)s_addWrapping;

    /// <summary>The address of the double add's entry point; 0 where it is unavailable (<see cref="DoubleAddUnavailableReason"/>).</summary>
    internal static nint DoubleEntryAddress => (nint)s_addDouble;

    /// <summary>
    /// Why <see cref="TryAddWrapping"/> refuses every add, or null where it adds: where
    /// <see cref="IsSupported"/> is <see langword="false"/>, or its function failed to be created
    /// or self-tested. The saturating add is kept either way: a wrapping add the function refuses
    /// goes to the overflow region, atomically (exact, only contended).
    /// </summary>
    internal static string? WrappingAddUnavailableReason { get; }

    /// <summary>Why <see cref="TryAddDouble"/> refuses every add, or null where it adds; as <see cref="WrappingAddUnavailableReason"/>.</summary>
    internal static string? DoubleAddUnavailableReason { get; }

    /// <summary>
    /// How many times the kernel has restarted an add since the process started, because the
    /// thread was preempted, migrated or signalled between reading its id and the add.
    /// A diagnostic: every restarted add still lands exactly once.
    /// </summary>
    public static long RestartCount => Volatile.Read(ref *s_restarts);

    /// <summary>
    /// Adds <paramref name="value"/> to the <see langword="long"/> at
    /// <paramref name="slotInRegion0"/> + id × <paramref name="regionStride"/> bytes, id being the
    /// calling thread's <see cref="IdField"/>, inside a restartable sequence; the sum saturates at
    /// <see cref="long.MaxValue"/>. Call only where <see cref="IsSupported"/>.
    /// </summary>
    /// <param name="slotInRegion0">The slot in region 0; regions 0 to <see cref="PartitionCount"/> - 1 must be mapped and stay put.</param>
    /// <param name="regionStride">The distance between two regions, in bytes.</param>
    /// <param name="value">The value to add, 0 or more.</param>
    /// <returns><see langword="true"/> when added; <see langword="false"/>, with nothing added, where the id is not below <see cref="PartitionCount"/> or the thread has no rseq area (the caller then adds to the overflow region).</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static bool TryAdd(long* slotInRegion0, nint regionStride, long value) => s_add(slotInRegion0, regionStride, value) != 0;

    /// <summary>
    /// Adds <paramref name="value"/>, of either sign, to the <see langword="long"/> at
    /// <paramref name="slotInRegion0"/> + id × <paramref name="regionStride"/> bytes inside a
    /// restartable sequence, wrapping in two's complement. Call only where <see cref="IsSupported"/>.
    /// </summary>
    /// <param name="slotInRegion0">The slot in region 0; regions 0 to <see cref="PartitionCount"/> - 1 must be mapped and stay put.</param>
    /// <param name="regionStride">The distance between two regions, in bytes.</param>
    /// <param name="value">The value to add.</param>
    /// <returns><see langword="true"/> when added; <see langword="false"/>, with nothing added, as <see cref="TryAdd"/>, and also wherever <see cref="WrappingAddUnavailableReason"/> is not null.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static bool TryAddWrapping(long* slotInRegion0, nint regionStride, long value) =>
        s_addWrapping != null && s_addWrapping(slotInRegion0, regionStride, value) != 0;

    /// <summary>
    /// Adds <paramref name="value"/> to the <see cref="double"/> at <paramref name="slotInRegion0"/>
    /// + id × <paramref name="regionStride"/> bytes (8-byte aligned) inside a restartable sequence.
    /// Call only where <see cref="IsSupported"/>.
    /// </summary>
    /// <param name="slotInRegion0">The slot in region 0; regions 0 to <see cref="PartitionCount"/> - 1 must be mapped and stay put.</param>
    /// <param name="regionStride">The distance between two regions, in bytes.</param>
    /// <param name="value">The value to add.</param>
    /// <returns><see langword="true"/> when added; <see langword="false"/>, with nothing added, as <see cref="TryAdd"/>, and also wherever <see cref="DoubleAddUnavailableReason"/> is not null.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static bool TryAddDouble(long* slotInRegion0, nint regionStride, double value) =>
        s_addDouble != null && s_addDouble(slotInRegion0, regionStride, value) != 0;

    // Creates the function of another operation for the saturating add's rseq offset, id field
    // and partition count; only called once that one exists.
    private static string? TryCreateAlongside(RestartableOperation operation, out RestartableAddFunction? function)
    {
        function = null;
        try
        {
            string? failure = RseqArea.TryGetOffset(out long rseqOffset);
            if (failure is null)
            {
                function = RestartableAddFunction.TryCreate(rseqOffset, s_function!.Plan, s_restarts, operation, out failure);
            }

            return failure is null ? null : $"the {operation} function: {failure}";
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException or ArgumentException)
        {
            return $"the {operation} function: {e.Message}";
        }
    }

    private static string? TryCreate(out RestartableAddFunction? function)
    {
        function = null;
        if (AppContext.TryGetSwitch(DisableSwitchName, out bool disabled) && disabled)
        {
            return $"the AppContext switch {DisableSwitchName} is set";
        }

        if (!OperatingSystem.IsLinux() || RuntimeInformation.ProcessArchitecture != Architecture.X64)
        {
            return "restartable sequences are used on Linux x86-64 only";
        }

        try
        {
            string? failure = RseqArea.TryGetOffset(out long rseqOffset);
            if (failure is not null)
            {
                return failure;
            }

            bool preferCpuId = AppContext.TryGetSwitch(PreferCpuIdSwitchName, out bool prefer) && prefer;
            RseqRegionPlan plan = RseqPartitionBounds.Choose(ProcessorSet.Current, RseqArea.KernelFillsMmCid, preferCpuId);
            function = RestartableAddFunction.TryCreate(rseqOffset, plan, s_restarts, RestartableOperation.SaturatingAdd, out failure);
            return failure;
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException or ArgumentException)
        {
            return e.Message;
        }
    }
}
