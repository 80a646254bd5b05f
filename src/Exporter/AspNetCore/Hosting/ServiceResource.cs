using System.Reflection;
using OpenTelemetry.Resources;

namespace ScalableMetrics.Exporter.Hosting;

/// <summary>
/// The resource attributes of the service (<c>service.name</c>, <c>service.instance.id</c>,
/// <c>service.version</c>, and any others OpenTelemetry's resource detection finds in
/// <c>OTEL_RESOURCE_ATTRIBUTES</c>), which the scrape writes as <c>target_info</c>'s labels.
/// Thread-safe (no state).
/// </summary>
internal static class ServiceResource
{
    private const string ServiceNameKey = "service.name";
    private const string ServiceInstanceIdKey = "service.instance.id";
    private const string ServiceVersionKey = "service.version";

    // OpenTelemetry's default service.name when none is configured: "unknown_service:" and the process name.
    private const string UnknownServicePrefix = "unknown_service";

    // One id per process, as OpenTelemetry's AddService(autoGenerateServiceInstanceId: true) makes it.
    private static readonly string s_instanceId = Guid.NewGuid().ToString();

    /// <summary>The options' attributes first, then the environment's (OpenTelemetry's default
    /// resource), then the entry assembly's name and version and a per-process id.</summary>
    public static IEnumerable<KeyValuePair<string, object?>> Attributes(ScalableMetricsOptions options)
    {
        // CreateDefault reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES and adds the SDK's own attributes.
        Dictionary<string, object?> detected = new(StringComparer.Ordinal);
        foreach (KeyValuePair<string, object> attribute in ResourceBuilder.CreateDefault().Build().Attributes)
        {
            if (!attribute.Key.StartsWith("telemetry.sdk.", StringComparison.Ordinal))
            {
                detected[attribute.Key] = attribute.Value;
            }
        }

        AssemblyName? entry = Assembly.GetEntryAssembly()?.GetName();
        string? detectedName = detected.GetValueOrDefault(ServiceNameKey) as string;
        bool nameUnknown = detectedName is null || detectedName.StartsWith(UnknownServicePrefix, StringComparison.Ordinal);
        detected[ServiceNameKey] = options.ServiceName ?? (nameUnknown ? entry?.Name ?? detectedName : detectedName);
        detected[ServiceInstanceIdKey] = options.ServiceInstanceId ?? detected.GetValueOrDefault(ServiceInstanceIdKey) ?? s_instanceId;
        detected[ServiceVersionKey] = options.ServiceVersion ?? detected.GetValueOrDefault(ServiceVersionKey) ?? InformationalVersion();
        return detected.Where(static attribute => attribute.Value is not null);
    }

    private static string? InformationalVersion() =>
        Assembly.GetEntryAssembly()?.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;
}
