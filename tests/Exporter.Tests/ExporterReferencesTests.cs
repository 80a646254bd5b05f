using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// The exporter reads readings, never cells: its assembly references no type of the core's
/// storage (<c>ScalableMetrics.Cells</c>) or platform code (<c>ScalableMetrics.Platform</c>).
/// </summary>
/// <remarks>
/// Read from the assembly's metadata, not checked by compiling: the core gives the exporter its
/// internals (<c>InternalsVisibleTo</c>), so a compile check would let any of them through.
/// </remarks>
public sealed class ExporterReferencesTests
{
    private static readonly string[] s_forbiddenNamespaces = ["ScalableMetrics.Cells", "ScalableMetrics.Platform"];

    [Fact]
    public void The_exporter_references_no_type_of_the_cells_or_the_platform()
    {
        IReadOnlyList<string> references = References(typeof(PrometheusScraper).Assembly.Location);

        string[] forbidden = [.. references.Where(reference => s_forbiddenNamespaces.Any(ns => IsIn(reference, ns)))];

        Assert.Empty(forbidden);
    }

    [Fact]
    public void The_check_sees_the_cores_internal_namespaces_the_exporter_does_use()
    {
        // Were the metadata read wrong (nested types, member parents), the test above would pass
        // for nothing: it must see the internal core types the exporter is known to use.
        IReadOnlyList<string> references = References(typeof(PrometheusScraper).Assembly.Location);

        Assert.Contains(references, reference => reference.StartsWith("ScalableMetrics.Naming.ExportedNames", StringComparison.Ordinal));
        Assert.Contains(references, reference => reference.StartsWith("ScalableMetrics.TagSet.", StringComparison.Ordinal));
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
