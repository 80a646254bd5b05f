using ScalableMetrics.TopologyCheck;

// The topology check's program: run inside the emulated many-CPU guest by
// scripts/many-cpu-guest-inside.sh (and runnable anywhere Linux runs). See CheckOptions for the
// arguments; it prints its figures and exits 1 when a check fails.
return Check.Run(args, Console.Out);
