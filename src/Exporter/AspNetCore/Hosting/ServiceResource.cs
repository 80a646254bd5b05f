using System.Diagnostics;
using System.Reflection;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// The resource attributes of the service (<c>service.name</c>, <c>service.instance.id</c>,
/// <c>service.version</c>, and any others set in <c>OTEL_RESOURCE_ATTRIBUTES</c>), which the scrape
/// writes as <c>target_info</c>'s labels. Thread-safe (no state).
/// </summary>
/// <remarks>
/// The two environment variables are read here as OpenTelemetry's resource SDK specification
/// defines them (and as OpenTelemetry .NET's <c>ResourceBuilder.CreateDefault()</c> reads them),
/// not through OpenTelemetry, so that this package does not depend on it.
/// </remarks>
internal static class ServiceResource
{
    /// <summary>The variable that sets <c>service.name</c>, over <see cref="ResourceAttributesVariable"/>'s.</summary>
    public const string ServiceNameVariable = "OTEL_SERVICE_NAME";

    /// <summary>The variable of the other attributes: <c>key1=value1,key2=value2</c>, keys and values percent-encoded.</summary>
    public const string ResourceAttributesVariable = "OTEL_RESOURCE_ATTRIBUTES";

    private const string ServiceNameKey = "service.name";
    private const string ServiceInstanceIdKey = "service.instance.id";
    private const string ServiceVersionKey = "service.version";

    // OpenTelemetry's default service.name when none is configured: "unknown_service:" and the process name.
    private const string UnknownServicePrefix = "unknown_service";

    // One id per process, as OpenTelemetry's AddService(autoGenerateServiceInstanceId: true) makes it.
    private static readonly string s_instanceId = Guid.NewGuid().ToString();

    /// <summary>The options' attributes first, then the environment's (OpenTelemetry's default
    /// resource), then the entry assembly's name and version and a per-process id.</summary>
    public static IEnumerable<KeyValuePair<string, object?>> Attributes(ScalableMetricsOptions options) =>
        Attributes(options, Environment.GetEnvironmentVariable(ServiceNameVariable), Environment.GetEnvironmentVariable(ResourceAttributesVariable));

    /// <summary><see cref="Attributes(ScalableMetricsOptions)"/> with the two variables' values given.</summary>
    internal static IEnumerable<KeyValuePair<string, object?>> Attributes(ScalableMetricsOptions options, string? serviceNameVariable, string? resourceAttributesVariable)
    {
        Dictionary<string, object?> detected = Detect(serviceNameVariable, resourceAttributesVariable);
        AssemblyName? entry = Assembly.GetEntryAssembly()?.GetName();
        string? detectedName = detected.GetValueOrDefault(ServiceNameKey) as string;
        bool nameUnknown = detectedName is null || detectedName.StartsWith(UnknownServicePrefix, StringComparison.Ordinal);
        detected[ServiceNameKey] = options.ServiceName ?? (nameUnknown ? entry?.Name ?? detectedName ?? UnknownServiceName() : detectedName);
        detected[ServiceInstanceIdKey] = options.ServiceInstanceId ?? detected.GetValueOrDefault(ServiceInstanceIdKey) ?? s_instanceId;
        detected[ServiceVersionKey] = options.ServiceVersion ?? detected.GetValueOrDefault(ServiceVersionKey) ?? InformationalVersion();
        return detected.Where(static attribute => attribute.Value is not null);
    }

    /// <summary>
    /// The attributes of <c>OTEL_RESOURCE_ATTRIBUTES</c>, then <c>OTEL_SERVICE_NAME</c> as
    /// <c>service.name</c> over any there. An entry without <c>=</c> or with an empty key is left
    /// out, as OpenTelemetry .NET leaves it; keys and values are trimmed and percent-decoded;
    /// of a key given twice, the last.
    /// </summary>
    internal static Dictionary<string, object?> Detect(string? serviceNameVariable, string? resourceAttributesVariable)
    {
        Dictionary<string, object?> detected = new(StringComparer.Ordinal);
        if (!string.IsNullOrWhiteSpace(resourceAttributesVariable))
        {
            foreach (string entry in resourceAttributesVariable.Split(','))
            {
                int equals = entry.IndexOf('=', StringComparison.Ordinal);
                // The specification has ',' and '=' percent-encoded in keys as in values, so a key
                // holding either can only be written encoded: it is decoded after the split.
                string key = equals < 0 ? string.Empty : Uri.UnescapeDataString(entry[..equals].Trim());
                if (key.Length > 0)
                {
                    detected[key] = Uri.UnescapeDataString(entry[(equals + 1)..].Trim());
                }
            }
        }

        if (!string.IsNullOrWhiteSpace(serviceNameVariable))
        {
            detected[ServiceNameKey] = serviceNameVariable.Trim();
        }

        return detected;
    }

    private static string UnknownServiceName()
    {
        using Process process = Process.GetCurrentProcess();
        return $"{UnknownServicePrefix}:{process.ProcessName}";
    }

    private static string? InformationalVersion() =>
        Assembly.GetEntryAssembly()?.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;
}
