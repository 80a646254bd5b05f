using System.Security.Authentication;
using System.Text.RegularExpressions;

namespace ScalableMetrics.Exporter.Prometheus.Scraping.Security;

/// <summary>
/// The scrape listener's web configuration, as prometheus/exporter-toolkit's <c>web-config.yml</c>
/// (<c>docs/web-configuration.md</c>) holds it: <c>tls_server_config</c> (<c>cert_file</c>,
/// <c>key_file</c>, <c>client_ca_file</c>, <c>client_auth_type</c>, <c>min_version</c>) and
/// <c>basic_auth_users</c> (a user name to a bcrypt hash), checked and with file paths made absolute.
/// Read from the file or from the configuration section's same keys, each flattened to
/// <c>tls_server_config:cert_file</c>-style keys first. Immutable.
/// </summary>
/// <param name="Tls">The TLS settings, or null to serve plain HTTP.</param>
/// <param name="Users">The basic-auth users and their bcrypt hashes, by name (case-sensitive); empty for no authentication.</param>
internal sealed partial record WebConfig(WebTlsConfig? Tls, IReadOnlyDictionary<string, string> Users)
{
    /// <summary>The key of the TLS settings.</summary>
    internal const string TlsKey = "tls_server_config";

    /// <summary>The key of the basic-auth users.</summary>
    internal const string UsersKey = "basic_auth_users";

    private static readonly string[] s_tlsKeys = ["cert_file", "key_file", "client_ca_file", "client_auth_type", "min_version"];

    // What exporter-toolkit accepts beyond these (cipher suites, curves, max_version, certificates
    // given inline, HTTP/2 and headers): refused by name rather than silently ignored.
    private static readonly string[] s_unsupported = ["cipher_suites", "curve_preferences", "max_version", "prefer_server_cipher_suites", "cert", "key", "client_ca", "client_allowed_sans", "http_server_config", "rate_limit"];

    /// <summary>Whether the configuration asks for anything: TLS or users.</summary>
    public bool IsEmpty => Tls is null && Users.Count == 0;

    /// <summary>
    /// Checks the flattened settings (<c>tls_server_config:cert_file</c> → value) and builds the configuration.
    /// </summary>
    /// <param name="settings">The settings, keys as flattened from the YAML or the configuration section.</param>
    /// <param name="source">What they came from, for messages: the file's path or the section's.</param>
    /// <param name="directory">Where relative file paths start: the file's folder, else the current folder.</param>
    /// <exception cref="InvalidOperationException">A setting is unknown, unsupported or invalid; the message names it and <paramref name="source"/>.</exception>
    public static WebConfig Parse(IReadOnlyDictionary<string, string?> settings, string source, string directory)
    {
        var problems = new List<string>();
        var users = new Dictionary<string, string>(StringComparer.Ordinal);
        var tls = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach ((string key, string? value) in settings)
        {
            string[] parts = key.Split(':', 2);
            if (parts[0] == UsersKey && parts.Length == 2)
            {
                if (value is null || !BcryptHash().IsMatch(value))
                {
                    problems.Add($"{UsersKey}:{parts[1]} is not a bcrypt hash ($2a$, $2b$ or $2y$, as htpasswd -B writes one).");
                }
                else if (CostOf(value) is int cost and (< MinBcryptCost or > MaxBcryptCost))
                {
                    problems.Add($"{UsersKey}:{parts[1]} is a bcrypt hash of cost {cost:00}, which bcrypt does not have: its cost is {MinBcryptCost} to {MaxBcryptCost} (htpasswd -B -C takes 4 to 17).");
                }
                else
                {
                    users[parts[1]] = value;
                }
            }
            else if (parts[0] == TlsKey && parts.Length == 2 && s_tlsKeys.Contains(parts[1]))
            {
                if (!string.IsNullOrWhiteSpace(value))
                {
                    tls[parts[1]] = value.Trim();
                }
            }
            else if (s_unsupported.Contains(parts[0]) || (parts[0] == TlsKey && parts.Length == 2 && s_unsupported.Contains(parts[1].Split(':')[0])))
            {
                problems.Add($"{key} is not supported by this listener.");
            }
            else if ((parts[0] is TlsKey or UsersKey) && parts.Length == 1 && string.IsNullOrEmpty(value))
            {
                // An empty section ("basic_auth_users:" with nothing under it).
            }
            else
            {
                problems.Add($"{key} is not a key of the web configuration (tls_server_config: cert_file, key_file, client_ca_file, client_auth_type, min_version; basic_auth_users).");
            }
        }

        WebTlsConfig? tlsConfig = tls.Count == 0 ? null : WebTlsConfig.Parse(tls, directory, problems);
        if (problems.Count > 0)
        {
            throw new InvalidOperationException($"The scrape listener's web configuration ({source}) is invalid: {string.Join(" ", problems)}");
        }

        return new WebConfig(tlsConfig, users);
    }

    // The cost a bcrypt hash may have (BCrypt.Net's and Go's golang.org/x/crypto/bcrypt's MinCost and MaxCost).
    private const int MinBcryptCost = 4;
    private const int MaxBcryptCost = 31;

    // The cost of a hash BcryptHash matches: the two digits after "$2<minor>$".
    private static int CostOf(string hash) =>
        int.Parse(hash.AsSpan(hash.IndexOf('$', 1) + 1, 2), System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture);

    // Modular crypt format of bcrypt: $2<minor>$<cost>$<22 salt + 31 hash characters>.
    [GeneratedRegex(@"^\$2[abxy]?\$[0-9]{2}\$[./A-Za-z0-9]{53}$", RegexOptions.CultureInvariant)]
    private static partial Regex BcryptHash();
}

/// <summary><c>tls_server_config</c>: the server's certificate and key (PEM files), the client CA
/// (PEM) and what is asked of clients, and the lowest TLS version. Immutable.</summary>
/// <param name="CertFile">The server certificate's PEM file (intermediates after it), absolute.</param>
/// <param name="KeyFile">The server key's PEM file, absolute.</param>
/// <param name="ClientCaFile">The PEM file of the CAs client certificates are verified against, absolute; null for none.</param>
/// <param name="ClientAuth">What is asked of clients.</param>
/// <param name="Protocols">The TLS versions accepted: 1.2 and 1.3 (<c>min_version: TLS12</c>, the default) or 1.3 only.</param>
internal sealed record WebTlsConfig(string CertFile, string KeyFile, string? ClientCaFile, ClientAuthType ClientAuth, SslProtocols Protocols)
{
    /// <summary>Checks <c>tls_server_config</c>'s settings, adding each problem to <paramref name="problems"/>; null where there is one.</summary>
    public static WebTlsConfig? Parse(Dictionary<string, string> tls, string directory, List<string> problems)
    {
        int before = problems.Count;
        string? cert = tls.GetValueOrDefault("cert_file");
        string? key = tls.GetValueOrDefault("key_file");
        if (cert is null || key is null)
        {
            problems.Add("tls_server_config needs both cert_file and key_file.");
        }

        ClientAuthType auth = ClientAuthType.NoClientCert;
        if (tls.TryGetValue("client_auth_type", out string? authText) && !TryParseClientAuth(authText, out auth))
        {
            problems.Add($"tls_server_config:client_auth_type '{authText}' is not one of {string.Join(", ", Enum.GetNames<ClientAuthType>())} (or RequireClientCert, the legacy name of RequireAnyClientCert).");
        }

        string? ca = tls.GetValueOrDefault("client_ca_file");
        if (ca is not null && auth == ClientAuthType.NoClientCert)
        {
            problems.Add("tls_server_config:client_ca_file is set but client_auth_type asks for no client certificate (NoClientCert).");
        }

        if (ca is null && auth is ClientAuthType.VerifyClientCertIfGiven or ClientAuthType.RequireAndVerifyClientCert)
        {
            problems.Add($"tls_server_config:client_auth_type {auth} needs client_ca_file.");
        }

        SslProtocols protocols = SslProtocols.Tls12 | SslProtocols.Tls13;
        switch (tls.GetValueOrDefault("min_version"))
        {
            case null or "TLS12":
                break;
            case "TLS13":
                protocols = SslProtocols.Tls13;
                break;
            case string other:
                problems.Add($"tls_server_config:min_version '{other}' is not supported: use TLS12 or TLS13 (TLS 1.0 and 1.1 are not offered).");
                break;
        }

        return problems.Count > before
            ? null
            : new WebTlsConfig(Path.GetFullPath(cert!, directory), Path.GetFullPath(key!, directory), ca is null ? null : Path.GetFullPath(ca, directory), auth, protocols);
    }

    // client_auth_type as exporter-toolkit reads it (web/tls_config.go): a name of ClientAuthType exactly, or RequireClientCert,
    // which it keeps for backwards compatibility as RequireAnyClientCert; not a number or a comma list, which Enum.TryParse takes.
    private static bool TryParseClientAuth(string text, out ClientAuthType auth)
    {
        ClientAuthType? parsed = text switch
        {
            nameof(ClientAuthType.NoClientCert) => ClientAuthType.NoClientCert,
            nameof(ClientAuthType.RequestClientCert) => ClientAuthType.RequestClientCert,
            nameof(ClientAuthType.RequireAnyClientCert) or "RequireClientCert" => ClientAuthType.RequireAnyClientCert,
            nameof(ClientAuthType.VerifyClientCertIfGiven) => ClientAuthType.VerifyClientCertIfGiven,
            nameof(ClientAuthType.RequireAndVerifyClientCert) => ClientAuthType.RequireAndVerifyClientCert,
            _ => null,
        };
        auth = parsed ?? ClientAuthType.NoClientCert;
        return parsed is not null;
    }
}
