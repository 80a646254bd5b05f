using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// Runs one benchmark method (its class's <c>[GlobalSetup]</c> first) a given number of times,
/// once it is compiled at Tier 1, between two marker calls that callgrind can zero its counts at
/// and dump them at: the instructions of those calls alone, repeatable on a busy machine where
/// timings are not. Also a process to read the JIT's listing of (<c>DOTNET_JitDisasm</c>).
/// </summary>
/// <remarks>
/// <code>
/// DOTNET_EnableWriteXorExecute=0 valgrind --tool=callgrind --aspace-minaddr=0x200000000 \
///   --separate-threads=yes --smc-check=all-non-file --zero-before=getppid --dump-before=getpgrp \
///   --callgrind-out-file=/tmp/cg.%p \
///   perf/Benchmarks/bin/Release/net10.0/ScalableMetrics.Benchmarks repeat ViewBenchmarks CounterUnboundWithView 20000 20
/// </code>
/// The main thread's part of the second dump (<c>/tmp/cg.PID.2-01</c>, its <c>summary:</c> line)
/// is the measured calls (the first is the markers' own first calls). With W^X on, callgrind did
/// not see the runtime repoint its call sites, and the calls stayed on Tier 0; at valgrind's low
/// addresses, the JIT's optimized compiles failed and were redone with MinOpts. Under valgrind,
/// restartable sequences are not supported: the registry takes its next write path (the same one
/// with or without a view). perf/results/README.md, views, has the figures.
/// </remarks>
internal static partial class RepeatCommand
{
    public const string Command = "repeat";

    // Rounds of calls and pauses before measuring (by default): each pause outlasts the runtime's
    // call-counting delay (100 ms), so that the instrumented and then the Tier-1 code is installed;
    // the calls of a round start the next promotion. Under valgrind, give more (20).
    private const int DefaultWarmRounds = 6;
    // Calls a round (by default): enough to count as hot for the runtime's tiering (30 calls)
    // many times over; a slow method (a scrape) needs fewer, given on the command line.
    private const int DefaultWarmCalls = 20_000;
    private const int PauseMilliseconds = 1_000;

    public static int Run(string[] args, TextWriter output)
    {
        int warmRounds = DefaultWarmRounds;
        int warmCalls = DefaultWarmCalls;
        if (args is not [string typeName, string methodName, string countText, .. string[] rest]
            || !long.TryParse(countText, out long count) || count < 0
            || rest.Length > 2
            || (rest.Length > 0 && (!int.TryParse(rest[0], out warmRounds) || warmRounds < 0))
            || (rest.Length > 1 && (!int.TryParse(rest[1], out warmCalls) || warmCalls < 1)))
        {
            output.WriteLine($"usage: {Command} CLASS METHOD COUNT [WARMROUNDS [WARMCALLS]] (e.g. {Command} ViewBenchmarks CounterUnboundWithView 100000; {Command} ScrapeFormatBenchmarks Text 20 6 200 for a slow method)");
            return 2;
        }

        Type type = typeof(RepeatCommand).Assembly.GetType(typeof(RepeatCommand).Namespace + "." + typeName)
            ?? throw new ArgumentException($"No benchmark class {typeName}.", nameof(args));
        object benchmarks = Activator.CreateInstance(type)!;
        MethodInfo method = type.GetMethod(methodName, BindingFlags.Public | BindingFlags.Instance, Type.EmptyTypes)
            ?? throw new ArgumentException($"No method {typeName}.{methodName}().", nameof(args));

        // A method that returns what it made (a scrape's length) is called through a delegate of
        // its own type, its result dropped: one more delegate call a call, the same in every tree.
        Action call = method.ReturnType == typeof(int)
            ? Dropping(method.CreateDelegate<Func<int>>(benchmarks))
            : method.CreateDelegate<Action>(benchmarks);
        InvokeMarked<GlobalSetupAttribute>(type, benchmarks);

        // The markers' own stubs are made here, not between them.
        _ = Markers.Begin();
        _ = Markers.End();
        for (int round = 0; round < warmRounds; round++)
        {
            Repeat(call, warmCalls);
            Thread.Sleep(PauseMilliseconds);
        }

        _ = Markers.Begin();
        Repeat(call, count);
        _ = Markers.End();

        InvokeMarked<GlobalCleanupAttribute>(type, benchmarks);
        output.WriteLine($"{typeName}.{methodName}: {count} calls");
        return 0;
    }

    // Optimized at once, without a profile: the delegate call is not inlined, so that the
    // benchmark method is compiled (and tiered) on its own, as BenchmarkDotNet calls it.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Repeat(Action call, long count)
    {
        for (long i = 0; i < count; i++)
        {
            call();
        }
    }

    private static Action Dropping(Func<int> call) => () => _ = call();

    private static void InvokeMarked<TAttribute>(Type type, object benchmarks)
        where TAttribute : Attribute
    {
        foreach (MethodInfo method in type.GetMethods(BindingFlags.Public | BindingFlags.Instance))
        {
            if (method.GetCustomAttribute<TAttribute>() is not null)
            {
                method.Invoke(benchmarks, null);
            }
        }
    }

    // Two libc calls the runtime does not make, for callgrind's --zero-before and --dump-before.
    private static partial class Markers
    {
        [LibraryImport("libc", EntryPoint = "getppid")]
        internal static partial int Begin();

        [LibraryImport("libc", EntryPoint = "getpgrp")]
        internal static partial int End();
    }
}
