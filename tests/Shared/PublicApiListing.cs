using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;

namespace ScalableMetrics.Tests.Shared;

/// <summary>
/// Lists an assembly's public surface, one line per type and member, sorted, so that a test can
/// compare it with a checked-in <c>PublicAPI.txt</c> (after OpenTelemetry .NET's
/// <c>.publicApi/PublicAPI.Shipped.txt</c> and ZeroLog's verified API snapshot; the analyzer
/// package is not in this project's package source). A change to the public API then shows up
/// in review as a change to that file.
/// </summary>
internal static class PublicApiListing
{
    /// <summary>The environment variable that makes <see cref="AssertMatches"/> rewrite the file instead of failing.</summary>
    public const string UpdateVariable = "SCALABLEMETRICS_UPDATE_PUBLIC_API";

    private const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;

    /// <summary>The sorted lines of <paramref name="assembly"/>'s public surface.</summary>
    public static IReadOnlyList<string> List(Assembly assembly)
    {
        var lines = new List<string>();
        foreach (Type type in assembly.GetExportedTypes())
        {
            lines.Add(TypeLine(type));
            foreach (MemberInfo member in type.GetMembers(Declared))
            {
                if (MemberLine(type, member) is { } line)
                {
                    lines.AddRange(line.Split('\n'));
                }
            }
        }

        lines.Sort(StringComparer.Ordinal);
        return lines;
    }

    /// <summary>
    /// Fails, with the lines added and removed, unless <paramref name="assembly"/>'s surface equals
    /// the file at <paramref name="path"/> (relative to the repository root); rewrites the file
    /// instead where <see cref="UpdateVariable"/> is <c>1</c>.
    /// </summary>
    public static void AssertMatches(Assembly assembly, string path, [CallerFilePath] string callerFile = "")
    {
        string file = Path.Combine(RepositoryRoot(callerFile), path);
        IReadOnlyList<string> actual = List(assembly);
        if (Environment.GetEnvironmentVariable(UpdateVariable) == "1")
        {
            File.WriteAllLines(file, actual);
            return;
        }

        string[] expected = File.Exists(file) ? File.ReadAllLines(file) : [];
        string[] added = [.. actual.Except(expected, StringComparer.Ordinal)];
        string[] removed = [.. expected.Except(actual, StringComparer.Ordinal)];
        if (added.Length > 0 || removed.Length > 0)
        {
            var message = new StringBuilder($"The public API of {assembly.GetName().Name} differs from {path}; review the change, then run the tests with {UpdateVariable}=1 to accept it.\n");
            foreach (string line in added)
            {
                message.Append("+ ").AppendLine(line);
            }

            foreach (string line in removed)
            {
                message.Append("- ").AppendLine(line);
            }

            Assert.Fail(message.ToString());
        }
    }

    private static string RepositoryRoot(string callerFile)
    {
        string? directory = Path.GetDirectoryName(callerFile);
        while (directory is not null && !File.Exists(Path.Combine(directory, "Metrics.sln")))
        {
            directory = Path.GetDirectoryName(directory);
        }

        return directory ?? throw new InvalidOperationException($"No Metrics.sln above {callerFile}.");
    }

    private static string TypeLine(Type type)
    {
        string kind = type.IsEnum ? "enum" : type.IsValueType ? "struct" : type.IsInterface ? "interface" : type.IsAbstract && type.IsSealed ? "static class"
            : typeof(Delegate).IsAssignableFrom(type) ? "delegate" : type.IsAbstract ? "abstract class" : type.IsSealed ? "sealed class" : "class";
        var bases = new List<string>();
        if (type.BaseType is { } baseType && baseType != typeof(object) && baseType != typeof(ValueType) && baseType != typeof(Enum))
        {
            bases.Add(Name(baseType));
        }

        bases.AddRange(type.GetInterfaces().Where(i => i.IsPublic || i.IsNestedPublic).Select(Name).Order(StringComparer.Ordinal));
        return $"{Name(type)} ({kind}{(bases.Count > 0 ? " : " + string.Join(", ", bases) : string.Empty)})";
    }

    private static string? MemberLine(Type type, MemberInfo member)
    {
        // The shape of OpenTelemetry's PublicAPI.Shipped.txt: Type.Member(parameters) -> Result.
        string prefix = Name(type) + ".";
        switch (member)
        {
            case ConstructorInfo c when IsVisible(c):
                return $"{(c.IsStatic ? "static " : string.Empty)}{prefix}{type.Name.Split('`')[0]}({Parameters(c.GetParameters())}) -> void";
            case MethodInfo m when IsVisible(m) && !m.IsSpecialName:
                return $"{Modifiers(m)}{prefix}{m.Name}{GenericArguments(m)}({Parameters(m.GetParameters())}) -> {Name(m.ReturnType)}";
            case PropertyInfo p:
                string indexer = p.GetIndexParameters() is { Length: > 0 } index ? $"[{Parameters(index)}]" : string.Empty;
                var accessors = new List<string>();
                if (p.GetMethod is { } getter && IsVisible(getter))
                {
                    accessors.Add($"{Modifiers(getter)}{prefix}{p.Name}{indexer}.get -> {Name(p.PropertyType)}");
                }

                if (p.SetMethod is { } setter && IsVisible(setter))
                {
                    bool init = setter.ReturnParameter.GetRequiredCustomModifiers().Any(m => m.FullName == "System.Runtime.CompilerServices.IsExternalInit");
                    accessors.Add($"{Modifiers(setter)}{prefix}{p.Name}{indexer}.{(init ? "init" : "set")} -> void");
                }

                return accessors.Count > 0 ? string.Join("\n", accessors) : null;
            case FieldInfo f when f.IsPublic || f.IsFamily || f.IsFamilyOrAssembly:
                if (type.IsEnum && f.IsSpecialName)
                {
                    return null;
                }

                string value = f.IsLiteral ? $" = {Literal(f.GetRawConstantValue())}" : string.Empty;
                string modifiers = f.IsLiteral ? "const " : (f.IsStatic ? "static " : string.Empty) + (f.IsInitOnly ? "readonly " : string.Empty);
                return $"{modifiers}{prefix}{f.Name}{value} -> {Name(f.FieldType)}";
            case EventInfo e when e.AddMethod is { } add && IsVisible(add):
                return $"{prefix}{e.Name} -> event {Name(e.EventHandlerType!)}";
            default:
                return null; // nested public types are listed as types of their own
        }
    }

    private static bool IsVisible(MethodBase method) => method.IsPublic || method.IsFamily || method.IsFamilyOrAssembly;

    private static string Modifiers(MethodInfo method)
    {
        string modifiers = method.IsFamily || method.IsFamilyOrAssembly ? "protected " : string.Empty;
        if (method.IsStatic)
        {
            return modifiers + "static ";
        }

        if (method.IsAbstract)
        {
            return modifiers + "abstract ";
        }

        if (method.IsVirtual && !method.IsFinal)
        {
            return modifiers + (method.GetBaseDefinition() != method ? "override " : "virtual ");
        }

        return method.IsVirtual && method.GetBaseDefinition() != method ? modifiers + "override " : modifiers;
    }

    private static string GenericArguments(MethodInfo method) =>
        method.IsGenericMethodDefinition ? $"<{string.Join(", ", method.GetGenericArguments().Select(Name))}>" : string.Empty;

    private static string Parameters(ParameterInfo[] parameters) => string.Join(", ", parameters.Select(p =>
    {
        string modifier = p.IsOut ? "out " : p.ParameterType.IsByRef ? (p.IsIn ? "in " : "ref ") : p.GetCustomAttributes(typeof(ParamArrayAttribute), false).Length > 0
            || p.GetCustomAttributesData().Any(a => a.AttributeType.Name == "ParamCollectionAttribute") ? "params " : string.Empty;
        string defaultValue = p.HasDefaultValue ? $" = {Literal(p.RawDefaultValue)}" : string.Empty;
        return $"{modifier}{Name(p.ParameterType)} {p.Name}{defaultValue}";
    }));

    private static string Literal(object? value) => value switch
    {
        null => "null",
        string s => $"\"{s}\"",
        bool b => b ? "true" : "false",
        IFormattable f => f.ToString(null, System.Globalization.CultureInfo.InvariantCulture),
        _ => value.ToString() ?? "null",
    };

    private static string Name(Type type)
    {
        if (type.IsByRef)
        {
            return Name(type.GetElementType()!);
        }

        if (type.IsArray)
        {
            return Name(type.GetElementType()!) + "[" + new string(',', type.GetArrayRank() - 1) + "]";
        }

        if (type.IsPointer)
        {
            return Name(type.GetElementType()!) + "*";
        }

        if (type.IsGenericParameter)
        {
            return type.Name;
        }

        string name = type.IsNested ? Name(type.DeclaringType!) + "." + type.Name : (type.Namespace is { Length: > 0 } ns ? ns + "." : string.Empty) + type.Name;
        int tick = name.IndexOf('`', StringComparison.Ordinal);
        if (tick >= 0)
        {
            name = name[..tick];
        }

        if (type.IsGenericType)
        {
            Type[] arguments = type.IsNested ? type.GetGenericArguments()[(type.DeclaringType!.GetGenericArguments().Length)..] : type.GetGenericArguments();
            if (arguments.Length > 0)
            {
                name += "<" + string.Join(", ", arguments.Select(Name)) + ">";
            }
        }

        return name;
    }
}
