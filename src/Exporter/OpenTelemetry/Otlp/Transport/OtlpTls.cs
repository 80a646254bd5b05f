using System.Net.Security;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using ScalableMetrics.Exporter.Prometheus.Scraping.Security;

namespace ScalableMetrics.Exporter.OpenTelemetry.Otlp.Transport;

/// <summary>
/// The exporter's TLS beyond the system's defaults, after the OTLP exporter specification's
/// <c>OTEL_EXPORTER_OTLP_CERTIFICATE</c>, <c>..._CLIENT_CERTIFICATE</c> and <c>..._CLIENT_KEY</c>:
/// the receiver's certificate verified against the CA certificates of a PEM file instead of the
/// system's trust store, and a client certificate (PEM, its key in the same file or its own) for
/// mutual TLS. Applied to the primary handler of the exporter's <c>IHttpClientFactory</c> client,
/// so OTLP/HTTP and OTLP/gRPC both use it. Loaded once, when the host starts. Thread-safe (immutable).
/// </summary>
internal sealed class OtlpTls
{

    private readonly X509Certificate2Collection? _trusted;
    private readonly X509Certificate2? _client;

    private OtlpTls(X509Certificate2Collection? trusted, X509Certificate2? client)
    {
        _trusted = trusted;
        _client = client;
    }

    /// <summary>The TLS settings of <paramref name="options"/>, loaded; null where it sets none.</summary>
    /// <exception cref="InvalidOperationException">A file cannot be read, or does not hold what it should; the message names the option.</exception>
    public static OtlpTls? Load(ScalableMetricsOtlpOptions options)
    {
        if (options.CertificateFile is null && options.ClientCertificateFile is null && options.ClientKeyFile is null)
        {
            return null;
        }

        if (options.ClientKeyFile is not null && options.ClientCertificateFile is null)
        {
            throw new InvalidOperationException($"{nameof(ScalableMetricsOtlpOptions.ClientKeyFile)} is set without {nameof(ScalableMetricsOtlpOptions.ClientCertificateFile)}.");
        }

        X509Certificate2Collection? trusted = null;
        if (options.CertificateFile is { } caFile)
        {
            trusted = [];
            try
            {
                trusted.ImportFromPemFile(caFile);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or CryptographicException)
            {
                throw new InvalidOperationException($"{nameof(ScalableMetricsOtlpOptions.CertificateFile)} '{caFile}' does not load as PEM certificates: {e.Message}", e);
            }

            if (trusted.Count == 0)
            {
                throw new InvalidOperationException($"{nameof(ScalableMetricsOtlpOptions.CertificateFile)} '{caFile}' holds no PEM certificate.");
            }
        }

        X509Certificate2? client = null;
        if (options.ClientCertificateFile is { } certFile)
        {
            try
            {
                client = X509Certificate2.CreateFromPemFile(certFile, options.ClientKeyFile);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or CryptographicException or ArgumentException)
            {
                throw new InvalidOperationException($"{nameof(ScalableMetricsOtlpOptions.ClientCertificateFile)} '{certFile}' and {nameof(ScalableMetricsOtlpOptions.ClientKeyFile)} '{options.ClientKeyFile ?? certFile}' do not load as a PEM certificate and its private key: {e.Message}", e);
            }

            if (OperatingSystem.IsWindows())
            {
                // SChannel needs a key it can persist; the PEM's is ephemeral.
                client = X509CertificateLoader.LoadPkcs12(client.Export(X509ContentType.Pkcs12), null);
            }
        }

        return new OtlpTls(trusted, client);
    }

    /// <summary>Sets the client certificate and the receiver's check on the factory's primary handler.</summary>
    /// <exception cref="InvalidOperationException">The application made the primary handler one that takes no certificates; the message names the options.</exception>
    public void Configure(HttpMessageHandler handler)
    {
        switch (handler)
        {
            case SocketsHttpHandler sockets:
                if (_client is not null)
                {
                    sockets.SslOptions.ClientCertificates = [_client];
                }

                if (_trusted is not null)
                {
                    sockets.SslOptions.RemoteCertificateValidationCallback = (_, certificate, chain, errors) => Validate(certificate, chain, errors);
                }

                break;
            case HttpClientHandler client:
                if (_client is not null)
                {
                    client.ClientCertificateOptions = ClientCertificateOption.Manual;
                    client.ClientCertificates.Add(_client);
                }

                if (_trusted is not null)
                {
                    client.ServerCertificateCustomValidationCallback = (_, certificate, chain, errors) => Validate(certificate, chain, errors);
                }

                break;
            default:
                // Sending without them would skip the receiver's check or the client certificate: refuse.
                throw new InvalidOperationException($"{Options()} cannot be set on the primary handler of the HttpClient '{ScalableMetricsOtlpOptions.HttpClientName}': it is a {handler.GetType().FullName}, and they need a SocketsHttpHandler or an HttpClientHandler. The exporter does not send without them; give the client one of those (ConfigurePrimaryHttpMessageHandler) or leave its handler as the factory makes it.");
        }
    }

    // The options behind the certificates this holds, for a message.
    private string Options() => (_trusted, _client) switch
    {
        (not null, not null) => $"{nameof(ScalableMetricsOtlpOptions)}.{nameof(ScalableMetricsOtlpOptions.CertificateFile)} and {nameof(ScalableMetricsOtlpOptions.ClientCertificateFile)}",
        (not null, null) => $"{nameof(ScalableMetricsOtlpOptions)}.{nameof(ScalableMetricsOtlpOptions.CertificateFile)}",
        _ => $"{nameof(ScalableMetricsOtlpOptions)}.{nameof(ScalableMetricsOtlpOptions.ClientCertificateFile)}",
    };

    // The host name as the system checks it; the chain against the given CAs alone.
    private bool Validate(System.Security.Cryptography.X509Certificates.X509Certificate? certificate, X509Chain? presented, SslPolicyErrors errors)
    {
        if (certificate is null || (errors & (SslPolicyErrors.RemoteCertificateNameMismatch | SslPolicyErrors.RemoteCertificateNotAvailable)) != 0)
        {
            return false;
        }

        return PrivateCaChain.Verify(certificate, presented, _trusted!, PrivateCaChain.ServerAuthenticationOid);
    }
}
