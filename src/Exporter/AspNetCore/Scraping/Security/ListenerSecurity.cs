using System.Net.Security;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace ScalableMetrics.Exporter.Prometheus.Scraping.Security;

/// <summary>
/// The scrape listener's TLS and basic authentication, from its web configuration
/// (<see cref="ScrapeListenerOptions.WebConfigFile"/>, or the same keys in <c>ScalableMetrics:ScrapeListener</c>,
/// checked as the file's are), kept current as
/// prometheus/exporter-toolkit keeps it: the file, and the certificate, key and client CA files it
/// names, are read again at each TLS handshake and each request (a few small files, at scrape
/// rate), and a change takes effect at once. A change that does not load (bad YAML, a key that does
/// not match its certificate) is logged once and the configuration before it kept. Whether the
/// listener speaks TLS at all is settled at start: turning it on or off needs a restart.
/// Thread-safe.
/// </summary>
internal sealed partial class ListenerSecurity
{

    private readonly string? _file;
    private readonly ILogger _logger;
    private readonly Lock _lock = new();
    private byte[]? _fileBytes;
    private State _state;
    private string? _lastProblem;

    private ListenerSecurity(string? file, byte[]? fileBytes, State state, ILogger logger)
    {
        _file = file;
        _fileBytes = fileBytes;
        _state = state;
        _logger = logger;
        UsesTls = state.Tls is not null;
    }

    /// <summary>Whether the listener serves HTTPS; settled at start.</summary>
    public bool UsesTls { get; }

    /// <summary>Whether requests need basic-auth credentials, as the configuration says now.</summary>
    public bool UsesBasicAuth => Current().Users is not null;

    /// <summary>The listener's security for <paramref name="options"/>, or null when it has none (plain HTTP, anyone).</summary>
    /// <param name="options">The listener's options: <see cref="ScrapeListenerOptions.WebConfigFile"/>.</param>
    /// <param name="section">The listener's configuration section, whose keys other than the listener's own options are its web configuration; null for none.</param>
    /// <param name="logger">Where reloads that fail are logged.</param>
    /// <exception cref="InvalidOperationException">The configuration, or a file it names, is invalid or cannot be read; a key of the section is unknown or unsupported; or both the file and the keys are given.</exception>
    public static ListenerSecurity? Create(ScrapeListenerOptions options, IConfigurationSection? section, ILogger logger)
    {
        // The section's keys are checked first, file or not: a misspelled key names itself
        // rather than pass for one of the two sources.
        WebConfig? keys = section is null ? null : WebConfigReader.FromSection(section);
        if (options.WebConfigFile is { Length: > 0 } file)
        {
            if (keys is not null)
            {
                throw new InvalidOperationException($"The scrape listener has both a web configuration file ({nameof(ScrapeListenerOptions.WebConfigFile)} '{file}') and tls_server_config or basic_auth_users keys in {section!.Path}: give one of the two.");
            }

            byte[] bytes = ReadFile(file, nameof(ScrapeListenerOptions.WebConfigFile));
            State state = Load(WebConfigReader.FromYaml(Decode(bytes), file), previous: null);
            return new ListenerSecurity(file, bytes, state, logger);
        }

        return keys is null || keys.IsEmpty ? null : new ListenerSecurity(null, null, Load(keys, previous: null), logger);
    }

    /// <summary>The TLS options of one connection, with the certificate files as they are now.</summary>
    public SslServerAuthenticationOptions ServerOptions()
    {
        TlsMaterial tls = Current().Tls!;
        return new SslServerAuthenticationOptions
        {
            ServerCertificateContext = tls.Context,
            EnabledSslProtocols = tls.Config.Protocols,
            ClientCertificateRequired = tls.Config.ClientAuth != ClientAuthType.NoClientCert,
            RemoteCertificateValidationCallback = tls.Config.ClientAuth == ClientAuthType.NoClientCert ? null : tls.ValidateClient,
            ApplicationProtocols = [SslApplicationProtocol.Http11],
        };
    }

    /// <summary>Whether a request with this <c>Authorization</c> header may scrape: always, without users.</summary>
    public bool Authorize(string? authorization)
    {
        BasicAuthUsers? users = Current().Users;
        return users is null || (BasicAuthUsers.TryRead(authorization, out string user, out string password) && users.Check(user, password));
    }

    private static State Load(WebConfig config, State? previous)
    {
        TlsMaterial? tls = config.Tls is null ? null : TlsMaterial.Load(config.Tls, previous?.Tls);

        // The users' outcomes stay remembered while the users are the same.
        BasicAuthUsers? users = config.Users.Count == 0 ? null
            : previous?.Users is not null && previous.Config.Users.Count == config.Users.Count && !previous.Config.Users.Except(config.Users).Any() ? previous.Users
            : new BasicAuthUsers(config.Users);
        return new State(config, tls, users);
    }

    private static byte[] ReadFile(string path, string what)
    {
        try
        {
            return File.ReadAllBytes(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            throw new InvalidOperationException($"The scrape listener's {what} '{path}' cannot be read: {e.Message}", e);
        }
    }

    // The web configuration file's text: UTF-8, without the byte order mark a Windows editor or Windows PowerShell's
    // Set-Content -Encoding UTF8 starts it with, which YAML 1.2 (5.2) allows and gopkg.in/yaml, exporter-toolkit's reader, skips.
    private static string Decode(byte[] bytes)
    {
        ReadOnlySpan<byte> text = bytes;
        return System.Text.Encoding.UTF8.GetString(text.StartsWith(System.Text.Encoding.UTF8.Preamble) ? text[3..] : text);
    }

    // The state for the files as they are now: reloaded where the web configuration file or a file it names changed.
    private State Current()
    {
        lock (_lock)
        {
            State state = _state;
            try
            {
                if (_file is not null)
                {
                    byte[] bytes = ReadFile(_file, nameof(ScrapeListenerOptions.WebConfigFile));
                    if (!bytes.AsSpan().SequenceEqual(_fileBytes))
                    {
                        WebConfig config = WebConfigReader.FromYaml(Decode(bytes), _file);
                        if ((config.Tls is not null) != UsesTls)
                        {
                            throw new InvalidOperationException($"the web configuration ({_file}) turns TLS {(UsesTls ? "off" : "on")}, which takes a restart of the application.");
                        }

                        state = Load(config, state);
                        _fileBytes = bytes;
                        LogReloaded(_logger, _file);
                    }
                }

                if (state.Tls is not null && !state.Tls.IsCurrent())
                {
                    state = state with { Tls = TlsMaterial.Load(state.Config.Tls!, state.Tls) };
                }

                _state = state;
                _lastProblem = null;
            }
            catch (Exception e) when (e is InvalidOperationException or CryptographicException)
            {
                if (_lastProblem != e.Message)
                {
                    _lastProblem = e.Message;
                    LogReloadFailed(_logger, e.Message);
                }
            }

            return _state;
        }
    }

    [LoggerMessage(EventId = 52, Level = LogLevel.Warning, Message = "Prometheus scrape listener: the changed web configuration was not taken, the one before stays: {Problem}")]
    private static partial void LogReloadFailed(ILogger logger, string problem);

    [LoggerMessage(EventId = 53, Level = LogLevel.Information, Message = "Prometheus scrape listener: web configuration {File} reloaded")]
    private static partial void LogReloaded(ILogger logger, string file);

    private sealed record State(WebConfig Config, TlsMaterial? Tls, BasicAuthUsers? Users);

    /// <summary>The certificate, key and client CA of <c>tls_server_config</c>, loaded, with the bytes they were loaded from.</summary>
    private sealed class TlsMaterial(WebTlsConfig config, byte[][] files, SslStreamCertificateContext context, X509Certificate2Collection? clientCa)
    {
        public WebTlsConfig Config => config;

        public SslStreamCertificateContext Context => context;

        public static TlsMaterial Load(WebTlsConfig config, TlsMaterial? previous)
        {
            byte[][] files = Read(config);
            if (previous is not null && previous.Config == config && previous.Same(files))
            {
                return previous;
            }

            X509Certificate2 certificate;
            X509Certificate2Collection chain = [];
            try
            {
                certificate = X509Certificate2.CreateFromPem(System.Text.Encoding.UTF8.GetString(files[0]), System.Text.Encoding.UTF8.GetString(files[1]));
                chain.ImportFromPem(System.Text.Encoding.UTF8.GetString(files[0]));
            }
            catch (Exception e) when (e is CryptographicException or ArgumentException)
            {
                throw new InvalidOperationException($"tls_server_config: the certificate '{config.CertFile}' and key '{config.KeyFile}' do not load as a PEM certificate and its private key: {e.Message}", e);
            }

            if (OperatingSystem.IsWindows())
            {
                // SChannel needs a key it can persist; the PEM's is ephemeral.
                certificate = X509CertificateLoader.LoadPkcs12(certificate.Export(X509ContentType.Pkcs12), null);
            }

            X509Certificate2Collection? clientCa = null;
            if (config.ClientCaFile is not null)
            {
                clientCa = [];
                try
                {
                    clientCa.ImportFromPem(System.Text.Encoding.UTF8.GetString(files[2]));
                }
                catch (CryptographicException e)
                {
                    throw new InvalidOperationException($"tls_server_config:client_ca_file '{config.ClientCaFile}' does not load as PEM certificates: {e.Message}", e);
                }

                if (clientCa.Count == 0)
                {
                    throw new InvalidOperationException($"tls_server_config:client_ca_file '{config.ClientCaFile}' holds no PEM certificate.");
                }
            }

            var context = SslStreamCertificateContext.Create(certificate, [.. chain.Skip(1)], offline: true);
            return new TlsMaterial(config, files, context, clientCa);
        }

        /// <summary>Whether the files are still those loaded.</summary>
        public bool IsCurrent() => Same(Read(config));

        /// <summary>The client certificate check that <c>client_auth_type</c> asks for.</summary>
        public bool ValidateClient(object sender, X509Certificate? certificate, X509Chain? chain, SslPolicyErrors errors) => config.ClientAuth switch
        {
            ClientAuthType.RequestClientCert => true,
            ClientAuthType.RequireAnyClientCert => certificate is not null,
            ClientAuthType.VerifyClientCertIfGiven => certificate is null || Verify(certificate, chain),
            ClientAuthType.RequireAndVerifyClientCert => certificate is not null && Verify(certificate, chain),
            _ => false,
        };

        private static byte[][] Read(WebTlsConfig config) =>
        [
            ReadFile(config.CertFile, "tls_server_config:cert_file"),
            ReadFile(config.KeyFile, "tls_server_config:key_file"),
            config.ClientCaFile is null ? [] : ReadFile(config.ClientCaFile, "tls_server_config:client_ca_file"),
        ];

        private bool Same(byte[][] other) =>
            files.Length == other.Length && files.Zip(other).All(static pair => pair.First.AsSpan().SequenceEqual(pair.Second));

        // Chained to the client CA alone (not the system's roots), for client authentication.
        private bool Verify(X509Certificate certificate, X509Chain? presented) =>
            PrivateCaChain.Verify(certificate, presented, clientCa!, PrivateCaChain.ClientAuthenticationOid);
    }
}
