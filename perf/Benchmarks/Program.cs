using BenchmarkDotNet.Running;

// Run a category at a time, e.g.:
//   dotnet run -c Release --project perf/Benchmarks -- --filter '*' --anyCategories add --job short
//
// In process: BenchmarkDotNet 0.14 builds a separate process from the project whose file is named
// after the assembly, and this project's file (Benchmarks.csproj) is not named ScalableMetrics.Benchmarks.csproj;
// the file locators that lift that rule arrived in 0.15.
string[] arguments = args.Any(a => a is "--inProcess" or "-i") ? args : [.. args, "--inProcess"];
BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(arguments);
