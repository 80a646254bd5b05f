using ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Configuration;

/// <summary>
/// Rejects OTLP settings the exporter could not send with, naming every problem and its setting at
/// once. Settings of an exporter that is not turned on are not checked: the <c>OTEL_*</c> variables
/// may be meant for another exporter in the process.
/// </summary>
internal sealed class OtlpOptionsValidator : IValidateOptions<ScalableMetricsOtlpOptions>
{
    private static readonly TimeSpan s_longest = TimeSpan.FromDays(1);

    public ValidateOptionsResult Validate(string? name, ScalableMetricsOtlpOptions options)
    {
        if (!options.Enabled)
        {
            return ValidateOptionsResult.Skip;
        }

        List<string> failures = [.. options.Problems];
        if (options.Endpoint is { } endpoint
            && (!endpoint.IsAbsoluteUri || (endpoint.Scheme != Uri.UriSchemeHttp && endpoint.Scheme != Uri.UriSchemeHttps)))
        {
            failures.Add($"{nameof(ScalableMetricsOtlpOptions.Endpoint)} {OtlpSettingParser.Shown(endpoint.OriginalString)} is not an absolute http or https URL.");
        }

        // Every failure's log line names the endpoint: a user name and password in its URL would
        // be written into the logs, so it is refused, without repeating them (nor its query, which
        // the log lines leave out too).
        if (options.ResolvedEndpoint() is { IsAbsoluteUri: true, UserInfo.Length: > 0 } withUser)
        {
            failures.Add($"The OTLP endpoint {OtlpSettingParser.ShownEndpoint(withUser)} has a user name or password before its host ('user:password@'), which the exporter's logs would repeat: give credentials as a header ({nameof(ScalableMetricsOtlpOptions.Headers)}, or OTEL_EXPORTER_OTLP_HEADERS, such as Authorization=Basic%20...).");
        }

        if (!Enum.IsDefined(options.Protocol))
        {
            failures.Add($"{nameof(ScalableMetricsOtlpOptions.Protocol)} '{options.Protocol}' is not a defined {nameof(OtlpProtocol)}.");
        }

        if (!Enum.IsDefined(options.Compression))
        {
            failures.Add($"{nameof(ScalableMetricsOtlpOptions.Compression)} '{options.Compression}' is not a defined {nameof(OtlpCompression)}.");
        }

        if (!Enum.IsDefined(options.Temporality))
        {
            failures.Add($"{nameof(ScalableMetricsOtlpOptions.Temporality)} '{options.Temporality}' is not a defined {nameof(OtlpTemporality)}.");
        }

        CheckDuration(failures, nameof(ScalableMetricsOtlpOptions.Timeout), options.Timeout);
        CheckDuration(failures, nameof(ScalableMetricsOtlpOptions.ExportInterval), options.ExportInterval);
        CheckDuration(failures, nameof(ScalableMetricsOtlpOptions.ExportTimeout), options.ExportTimeout);
        if (options.MaxRequestBytes < Encoding.OtlpRequestSplitter.MinimumMaxBytes)
        {
            failures.Add($"{nameof(ScalableMetricsOtlpOptions.MaxRequestBytes)} must be at least {Encoding.OtlpRequestSplitter.MinimumMaxBytes}; it is {options.MaxRequestBytes}.");
        }

        foreach (KeyValuePair<string, string> header in options.Headers)
        {
            if (OtlpHeaders.Problem(header.Key, header.Value) is string problem)
            {
                failures.Add($"{nameof(ScalableMetricsOtlpOptions.Headers)}: {problem}");
            }
        }

        if (options.Problems.Count == 0)
        {
            // The certificates load now, so that a bad file stops the start rather than every export.
            try
            {
                _ = OtlpTls.Load(options);
            }
            catch (InvalidOperationException e)
            {
                failures.Add(e.Message);
            }
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private static void CheckDuration(List<string> failures, string name, TimeSpan value)
    {
        if (value <= TimeSpan.Zero || value > s_longest)
        {
            failures.Add($"{name} must be positive and at most one day; it is {value}.");
        }
    }
}
