using System.Reflection;
using System.Runtime.CompilerServices;
using System.Xml.Linq;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// Every library under <c>src/</c> is built trimmable and Native AOT compatible (issue 21): the SDK
/// stamps an assembly built with <c>IsTrimmable</c> (which <c>IsAotCompatible</c> implies, and
/// Directory.Build.props sets both on every library) with
/// <c>[AssemblyMetadata("IsTrimmable", "True")]</c>, which a trimming publish reads. A library that
/// turned the properties off, or a new one outside their reach, fails here.
/// Directory.Build.targets also fails the build of a library with either property off.
/// </summary>
public sealed class TrimmableLibrariesTests
{
    [Fact]
    public void EveryLibraryUnderSrcIsMarkedTrimmable()
    {
        string source = Path.Combine(RepositoryRoot(), "src");
        string[] projects = [.. Directory.GetFiles(source, "*.csproj", SearchOption.AllDirectories)
            .Where(path => !Path.GetRelativePath(source, path).Split(Path.DirectorySeparatorChar).Any(part => part is "bin" or "obj"))];
        var names = projects.Select(AssemblyNameOf).ToList();
        Assert.Contains("ScalableMetrics", names);
        Assert.Contains("ScalableMetrics.Prometheus", names);
        Assert.Contains("ScalableMetrics.AspNetCore", names);
        Assert.Contains("ScalableMetrics.OpenTelemetry", names);

        var problems = new List<string>();
        foreach (string project in projects)
        {
            string name = AssemblyNameOf(project);
            Assembly assembly;
            try
            {
                assembly = Assembly.Load(new AssemblyName(name));
            }
            catch (FileNotFoundException)
            {
                problems.Add($"{Path.GetRelativePath(source, project)}: its assembly {name} is not referenced by these tests; reference it from Exporter.Tests.csproj so that this test reads it.");
                continue;
            }

            if (!IsMarkedTrimmable(assembly))
            {
                problems.Add($"{Path.GetRelativePath(source, project)}: {name} has no [AssemblyMetadata(\"IsTrimmable\", \"True\")]; keep IsTrimmable and IsAotCompatible on.");
            }
        }

        Assert.True(problems.Count == 0, string.Join(Environment.NewLine, problems));
    }

    [Fact]
    public void TheMarkComesFromTheLibraryPropertiesNotFromEveryProject() =>
        Assert.False(IsMarkedTrimmable(typeof(TrimmableLibrariesTests).Assembly));

    private static bool IsMarkedTrimmable(Assembly assembly) =>
        assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Any(a => a.Key == "IsTrimmable" && a.Value == "True");

    // The AssemblyName a csproj sets, or the SDK's default, its file name.
    private static string AssemblyNameOf(string project) =>
        XDocument.Load(project).Descendants("AssemblyName").Select(e => e.Value.Trim()).FirstOrDefault(v => v.Length > 0)
        ?? Path.GetFileNameWithoutExtension(project);

    private static string RepositoryRoot([CallerFilePath] string callerFile = "")
    {
        string? directory = Path.GetDirectoryName(callerFile);
        while (directory is not null && !File.Exists(Path.Combine(directory, "Metrics.sln")))
        {
            directory = Path.GetDirectoryName(directory);
        }

        return directory ?? throw new InvalidOperationException($"No Metrics.sln above {callerFile}.");
    }
}
