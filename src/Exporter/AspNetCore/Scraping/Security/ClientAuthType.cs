namespace ScalableMetrics.Exporter.Prometheus.Scraping.Security;

/// <summary>
/// <c>tls_server_config.client_auth_type</c> of prometheus/exporter-toolkit's web configuration,
/// named as there (Go's <c>tls.ClientAuthType</c>): whether the listener asks for a client
/// certificate, requires one, and verifies it against <c>client_ca_file</c>.
/// </summary>
internal enum ClientAuthType
{
    /// <summary>No client certificate is asked for.</summary>
    NoClientCert,

    /// <summary>A certificate is asked for; none, or any, is accepted.</summary>
    RequestClientCert,

    /// <summary>A certificate is required, not verified. Also read from <c>RequireClientCert</c>, its legacy name, as exporter-toolkit reads it.</summary>
    RequireAnyClientCert,

    /// <summary>A certificate given is verified against the client CA; none is accepted.</summary>
    VerifyClientCertIfGiven,

    /// <summary>A certificate is required and verified against the client CA.</summary>
    RequireAndVerifyClientCert,
}
