using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using System.Runtime.InteropServices;
using Microsoft.Extensions.DependencyInjection;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// The exporter reads readings, never cells: none of its assemblies references a type of the core's
/// storage (<c>ScalableMetrics.Cells</c>) or platform code (<c>ScalableMetrics.Platform</c>); and
/// records through the recorders the instruments hand out, never the core's lookup
/// (<c>ScalableMetrics.SeriesTables</c>, <c>ScalableMetrics.Tags</c>). And
/// the packages take only what they say they take: the core the BCL alone, the Prometheus and
/// ASP.NET Core packages no OpenTelemetry.
/// </summary>
/// <remarks>
/// Read from the assembly's metadata, not checked by compiling: the core gives the exporter its
/// internals (<c>InternalsVisibleTo</c>), so a compile check would let any of them through.
/// </remarks>
public sealed class ExporterReferencesTests
{
    private static readonly string[] s_forbiddenNamespaces = ["ScalableMetrics.Cells", "ScalableMetrics.Platform", "ScalableMetrics.SeriesTables", "ScalableMetrics.Tags"];

    // The exporter's assemblies, one per package, by a public type of each.
    private static readonly string[] s_exporterAssemblies =
    [
        typeof(PrometheusScraper).Assembly.GetName().Name!,
        typeof(ScalableMetricsOptions).Assembly.GetName().Name!,
        typeof(ScalableMetricsOpenTelemetryOptionsExtensions).Assembly.GetName().Name!,
    ];

    public static TheoryData<string> ExporterAssemblies => new(s_exporterAssemblies);

    [Theory]
    [MemberData(nameof(ExporterAssemblies))]
    public void NoExporterAssemblyReferencesATypeOfTheCellsThePlatformOrTheLookup(string assemblyName)
    {
        IReadOnlyList<string> references = References(Assembly.Load(assemblyName).Location);

        string[] forbidden = [.. references.Where(reference => s_forbiddenNamespaces.Any(ns => IsIn(reference, ns)))];

        Assert.Empty(forbidden);
    }

    [Fact]
    public void TheThreeExporterPackagesAreThreeAssemblies()
    {
        Assert.Equal(["ScalableMetrics.Prometheus", "ScalableMetrics.AspNetCore", "ScalableMetrics.OpenTelemetry"], s_exporterAssemblies);
    }

    [Theory]
    [InlineData("ScalableMetrics.Prometheus")]
    [InlineData("ScalableMetrics.AspNetCore")]
    public void ThePrometheusAndAspNetCorePackagesReferenceNoOpenTelemetryAssembly(string assemblyName)
    {
        IReadOnlyList<string> assemblies = AssemblyReferences(Assembly.Load(assemblyName).Location);

        Assert.Contains("ScalableMetrics", assemblies);
        Assert.DoesNotContain(assemblies, name => name.StartsWith("OpenTelemetry", StringComparison.OrdinalIgnoreCase));
    }

    [Fact]
    public void ThePrometheusPackageReferencesTheCoreAndTheLoggingAndDiagnosticsAbstractionsBeyondTheBCL()
    {
        IReadOnlyList<string> assemblies = AssemblyReferences(typeof(PrometheusScraper).Assembly.Location);

        Assert.Equal(
            ["Microsoft.Extensions.Diagnostics.Abstractions", "Microsoft.Extensions.Logging.Abstractions", "ScalableMetrics"],
            assemblies.Where(name => !IsInTheBcl(name)).Order(StringComparer.Ordinal));
    }

    [Fact]
    public void TheOpenTelemetryPackageIsTheOneThatReferencesOpenTelemetry()
    {
        // Were the references read wrong, the test above would pass for nothing.
        Assert.Contains("OpenTelemetry", AssemblyReferences(typeof(ScalableMetricsOpenTelemetryOptionsExtensions).Assembly.Location));
    }

    [Fact]
    public void TheCoreReferencesNothingBeyondTheBCL()
    {
        IReadOnlyList<string> assemblies = AssemblyReferences(typeof(MetricRegistry).Assembly.Location);

        Assert.Contains("System.Runtime", assemblies);
        Assert.DoesNotContain(assemblies, name => !IsInTheBcl(name));
    }

    [Fact]
    public void TheCheckSeesTheCoresInternalNamespacesTheExporterDoesUse()
    {
        // Were the metadata read wrong (nested types, member parents), the test above would pass
        // for nothing: it must see the internal core types the exporter's assemblies are known to use.
        string[] references = [.. s_exporterAssemblies.SelectMany(name => References(Assembly.Load(name).Location))];

        Assert.Contains(references, reference => reference.StartsWith("ScalableMetrics.Naming.ExportedNames", StringComparison.Ordinal));
        Assert.Contains(references, reference => reference.StartsWith("ScalableMetrics.TagSet.", StringComparison.Ordinal));
        Assert.Contains(references, reference => reference.StartsWith("ScalableMetrics.Recording.SeriesRecorder`1", StringComparison.Ordinal));
    }

    // The BCL: the assemblies of the shared framework Microsoft.NETCore.App the tests run on.
    private static bool IsInTheBcl(string assemblyName) =>
        File.Exists(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), assemblyName + ".dll"));

    private static List<string> AssemblyReferences(string assemblyPath)
    {
        using var stream = File.OpenRead(assemblyPath);
        using var pe = new PEReader(stream);
        MetadataReader metadata = pe.GetMetadataReader();
        return [.. metadata.AssemblyReferences.Select(handle => metadata.GetString(metadata.GetAssemblyReference(handle).Name))];
    }

    private static bool IsIn(string reference, string ns) =>
        reference.StartsWith(ns + ".", StringComparison.Ordinal);

    // Every type reference (a nested type under its outermost type's namespace), and every member
    // reference as "Type.Member" where its parent is a type reference.
    private static List<string> References(string assemblyPath)
    {
        using var stream = File.OpenRead(assemblyPath);
        using var pe = new PEReader(stream);
        MetadataReader metadata = pe.GetMetadataReader();
        var references = new List<string>();
        foreach (TypeReferenceHandle handle in metadata.TypeReferences)
        {
            references.Add(FullName(metadata, handle));
        }

        foreach (MemberReferenceHandle handle in metadata.MemberReferences)
        {
            MemberReference member = metadata.GetMemberReference(handle);
            if (member.Parent.Kind == HandleKind.TypeReference)
            {
                references.Add(FullName(metadata, (TypeReferenceHandle)member.Parent) + "." + metadata.GetString(member.Name));
            }
        }

        return references;
    }

    private static string FullName(MetadataReader metadata, TypeReferenceHandle handle)
    {
        TypeReference type = metadata.GetTypeReference(handle);
        string name = metadata.GetString(type.Name);
        return type.ResolutionScope.Kind == HandleKind.TypeReference
            ? FullName(metadata, (TypeReferenceHandle)type.ResolutionScope) + "+" + name
            : metadata.GetString(type.Namespace) + "." + name;
    }
}
