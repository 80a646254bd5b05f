using System.Net;
using System.Net.Http.Headers;
using System.Security.Authentication;
using System.Text;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using ScalableMetrics.Exporter.Prometheus.Scraping;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping.Security;

/// <summary>
/// The standalone listener with a web configuration as Prometheus' exporters take one: TLS with
/// certificates made at test time, client certificates, and basic authentication with bcrypt
/// hashes (cost 4, the lowest, to keep the tests fast); over loopback, a few requests each.
/// </summary>
public sealed class ScrapeListenerSecurityTests : IDisposable
{
    private const string User = "prometheus";
    private const string Password = "s3cret scrape";

    private readonly TestCertificates _certificates = TestCertificates.Create();
    private readonly string _webConfig;

    public ScrapeListenerSecurityTests() => _webConfig = Path.Combine(_certificates.Directory, "web-config.yml");

    public void Dispose() => _certificates.Dispose();

    [Fact]
    public async Task ServesTheExactTotalOverTlsToACallerWithCredentials()
    {
        WriteWebConfig(Tls() + Users((User, Password)));
        using IHost host = BuildHostReadingTheWebConfigFile();
        host.Services.GetRequiredService<MetricRegistry>().CreateCounter("secure.items").Add(1234);
        await WhileServingAsync(host, async () =>
        {
            using HttpClient client = _certificates.NewClient();
            using HttpResponseMessage response = await client.SendAsync(Get(host, User, Password));

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Contains("\nsecure_items_total{otel_scope_name=\"ScalableMetrics\"} 1234\n", "\n" + await response.Content.ReadAsStringAsync());
        });
    }

    [Theory]
    [InlineData(null, null)]
    [InlineData(User, "wrong")]
    [InlineData("nobody", Password)]
    [InlineData(User, "")]
    public async Task RefusesMissingOrWrongCredentials401WithABasicChallenge(string? user, string? password)
    {
        WriteWebConfig(Tls() + Users((User, Password)));
        using IHost host = BuildHostReadingTheWebConfigFile();
        await WhileServingAsync(host, async () =>
        {
            using HttpClient client = _certificates.NewClient();
            using HttpResponseMessage response = await client.SendAsync(Get(host, user, password));

            Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
            AuthenticationHeaderValue challenge = Assert.Single(response.Headers.WwwAuthenticate);
            Assert.Equal("Basic", challenge.Scheme);
            Assert.DoesNotContain("secure", await response.Content.ReadAsStringAsync(), StringComparison.Ordinal);
        });
    }

    [Fact]
    public async Task AClientThatTrustsAnotherAuthorityFailsTheHandshake()
    {
        WriteWebConfig(Tls());
        using IHost host = BuildHostReadingTheWebConfigFile();
        await WhileServingAsync(host, async () =>
        {
            using var other = TestCertificates.Create("Other");
            using HttpClient client = other.NewClient();

            HttpRequestException refused = await Assert.ThrowsAsync<HttpRequestException>(() => client.SendAsync(Get(host, null, null)));
            Assert.IsType<AuthenticationException>(refused.InnerException);
        });
    }

    [Fact]
    public async Task RequireAndVerifyClientCertServesOnlyAClientCertificateOfItsAuthority()
    {
        WriteWebConfig(Tls($"  client_ca_file: ca.pem\n  client_auth_type: RequireAndVerifyClientCert\n"));
        using IHost host = BuildHostReadingTheWebConfigFile();
        await WhileServingAsync(host, async () =>
        {
            using var other = TestCertificates.Create("Other");
            using HttpClient withoutCertificate = _certificates.NewClient();
            using HttpClient withOthers = _certificates.NewClient(other.Client);
            using HttpClient withOwn = _certificates.NewClient(_certificates.Client);

            await Assert.ThrowsAsync<HttpRequestException>(() => withoutCertificate.SendAsync(Get(host, null, null)));
            await Assert.ThrowsAsync<HttpRequestException>(() => withOthers.SendAsync(Get(host, null, null)));
            using HttpResponseMessage response = await withOwn.SendAsync(Get(host, null, null));
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        });
    }

    // exporter-toolkit's web/tls_config.go: case "RequireAnyClientCert", "RequireClientCert": // Preserved for
    // backwards compatibility. A web-config.yml written for an older exporter names the legacy value.
    [Fact]
    public async Task RequireClientCertIsTakenAsRequireAnyClientCertAsExporterToolkitTakesIt()
    {
        WriteWebConfig(Tls("  client_auth_type: RequireClientCert\n"));
        using IHost host = BuildHostReadingTheWebConfigFile();
        await WhileServingAsync(host, async () =>
        {
            using var other = TestCertificates.Create("Other");
            using HttpClient withoutCertificate = _certificates.NewClient();
            using HttpClient withOthers = _certificates.NewClient(other.Client);

            await Assert.ThrowsAsync<HttpRequestException>(() => withoutCertificate.SendAsync(Get(host, null, null)));
            using HttpResponseMessage response = await withOthers.SendAsync(Get(host, null, null));
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        });
    }

    [Fact]
    public async Task AChangedFileTakesEffectAtTheNextRequest()
    {
        WriteWebConfig(Users((User, Password)));
        using IHost host = BuildHostReadingTheWebConfigFile();
        await WhileServingAsync(host, async () =>
        {
            using HttpClient client = PlainHttpClient();
            using (HttpResponseMessage before = await client.SendAsync(Get(host, User, Password, "http")))
            {
                Assert.Equal(HttpStatusCode.OK, before.StatusCode);
            }

            WriteWebConfig(Users((User, "rotated")));
            using (HttpResponseMessage old = await client.SendAsync(Get(host, User, Password, "http")))
            {
                Assert.Equal(HttpStatusCode.Unauthorized, old.StatusCode);
            }

            using (HttpResponseMessage rotated = await client.SendAsync(Get(host, User, "rotated", "http")))
            {
                Assert.Equal(HttpStatusCode.OK, rotated.StatusCode);
            }

            // A change that does not load leaves the one before in force.
            WriteWebConfig("basic_auth_users:\n  prometheus: not-a-hash\n");
            using HttpResponseMessage kept = await client.SendAsync(Get(host, User, "rotated", "http"));
            Assert.Equal(HttpStatusCode.OK, kept.StatusCode);
        });
    }

    // bcrypt's cost is 4 to 31 (BCrypt.Net's and Go's MinCost..MaxCost); the hash pattern takes any two digits.
    // ListenerSecurity.Create: "<exception cref="InvalidOperationException">The configuration ... is invalid".
    [Theory]
    [InlineData("32")]
    [InlineData("03")]
    public async Task ABcryptHashOfACostBcryptDoesNotHaveStopsTheStartNamingTheUser(string cost)
    {
        WriteWebConfig($"basic_auth_users:\n  {User}: {HashOfCost(Password, cost)}\n");
        using IHost host = BuildHostReadingTheWebConfigFile();

        Exception failed = await Record.ExceptionAsync(() => host.StartAsync());

        Assert.IsType<InvalidOperationException>(failed);
        Assert.Contains("basic_auth_users:" + User, failed.Message, StringComparison.Ordinal);
    }

    // docs/worker-services.md: "a change that does not load is logged once (Warning, event 52 ...) while
    // the configuration before it stays".
    [Fact]
    public async Task AChangedFileWithAHashOfACostBcryptDoesNotHaveLeavesTheOneBeforeInForce()
    {
        WriteWebConfig(Users((User, Password)));
        using IHost host = BuildHostReadingTheWebConfigFile();
        await WhileServingAsync(host, async () =>
        {
            using HttpClient client = PlainHttpClient();
            WriteWebConfig(Users((User, Password)) + $"  other: {HashOfCost("other", "32")}\n");

            using HttpResponseMessage kept = await client.SendAsync(Get(host, User, Password, "http"));
            using HttpResponseMessage anonymous = await client.SendAsync(Get(host, null, null, "http"));

            Assert.Equal(HttpStatusCode.OK, kept.StatusCode);
            Assert.Equal(HttpStatusCode.Unauthorized, anonymous.StatusCode);
        });
    }

    // exporter-toolkit reads the file with gopkg.in/yaml.v2, which skips a UTF-8 byte order mark, as
    // YAML 1.2 (§5.2, c-byte-order-mark) has it: a web-config.yml saved by a Windows editor or by
    // Windows PowerShell's Set-Content -Encoding UTF8 starts with one.
    [Fact]
    public async Task AWebConfigFileThatStartsWithAUtf8ByteOrderMarkIsRead()
    {
        File.WriteAllText(_webConfig, Users((User, Password)), new UTF8Encoding(encoderShouldEmitUTF8Identifier: true));
        using IHost host = BuildHostReadingTheWebConfigFile();

        Exception? failed = await Record.ExceptionAsync(() => host.StartAsync());

        Assert.True(failed is null, $"The host did not start: {failed?.Message}");
        await StopAfterAsync(host, async () =>
        {
            using HttpClient client = PlainHttpClient();
            using HttpResponseMessage anonymous = await client.SendAsync(Get(host, null, null, "http"));
            using HttpResponseMessage scraper = await client.SendAsync(Get(host, User, Password, "http"));

            Assert.Equal(HttpStatusCode.Unauthorized, anonymous.StatusCode);
            Assert.Equal(HttpStatusCode.OK, scraper.StatusCode);
        });
    }

    [Fact]
    public async Task TakesTheSameKeysFromTheConfigurationSection()
    {
        using IHost host = BuildHost(
            o => o.AddScrapeListener(0),
            new Dictionary<string, string?>
            {
                ["ScalableMetrics:ScrapeListener:tls_server_config:cert_file"] = _certificates.ServerCertFile,
                ["ScalableMetrics:ScrapeListener:tls_server_config:key_file"] = _certificates.ServerKeyFile,
                ["ScalableMetrics:ScrapeListener:basic_auth_users:" + User] = BCrypt.Net.BCrypt.HashPassword(Password, 4),
            });
        await WhileServingAsync(host, async () =>
        {
            using HttpClient client = _certificates.NewClient();
            using HttpResponseMessage anonymous = await client.SendAsync(Get(host, null, null));
            using HttpResponseMessage scraper = await client.SendAsync(Get(host, User, Password));

            Assert.Equal(HttpStatusCode.Unauthorized, anonymous.StatusCode);
            Assert.Equal(HttpStatusCode.OK, scraper.StatusCode);
        });
    }

    [Theory]
    [InlineData("tls_server_config:\n  cert_file: server.pem\n", "needs both cert_file and key_file")]
    [InlineData("tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  min_version: TLS10\n", "min_version 'TLS10'")]
    [InlineData("tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n", "needs client_ca_file")]
    [InlineData("tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n", "tls_server_config:cipher_suites:0 is not supported")]
    // exporter-toolkit takes client_auth_type's names only (web/tls_config.go: "invalid ClientAuth"), not a
    // number or a comma list, which Enum.TryParse reads as a value (the second as RequestClientCert | RequireAnyClientCert).
    [InlineData("tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  client_auth_type: 2\n", "tls_server_config:client_auth_type '2' is not one of")]
    [InlineData("tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  client_auth_type: RequestClientCert, RequireAnyClientCert\n", "tls_server_config:client_auth_type 'RequestClientCert, RequireAnyClientCert' is not one of")]
    [InlineData("tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  client_auth_type: NoClientCert,RequestClientCert\n", "tls_server_config:client_auth_type 'NoClientCert,RequestClientCert' is not one of")]
    [InlineData("basic_auth_users:\n  prometheus: plain\n", "basic_auth_users:prometheus is not a bcrypt hash")]
    // Arabic-Indic digits for the cost: digits to Regex's \d, not to int.Parse.
    [InlineData("basic_auth_users:\n  prometheus: $2y$\u0661\u0660$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0\n", "basic_auth_users:prometheus is not a bcrypt hash")]
    [InlineData("basic_auth_user:\n  prometheus: x\n", "basic_auth_user:prometheus is not a key")]
    [InlineData("tls_server_config:\n  cert_file: missing.pem\n  key_file: server.key\n", "cert_file")]
    [InlineData("tls_server_config: [", "not valid YAML")]
    public async Task AnInvalidWebConfigurationStopsTheStartNamingTheSetting(string yaml, string named)
    {
        WriteWebConfig(yaml);
        using IHost host = BuildHostReadingTheWebConfigFile();

        InvalidOperationException failed = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync());

        Assert.Contains(named, failed.Message, StringComparison.Ordinal);
    }

    // The section takes the file's keys, so it refuses what the file refuses, with the same
    // messages: a misspelled basic_auth_users would otherwise serve the metrics to anyone.
    [Theory]
    [InlineData("basic_auth_user:prometheus", "basic_auth_user:prometheus is not a key")]
    [InlineData("rate_limit:interval", "rate_limit:interval is not supported")]
    [InlineData("http_server_config:http2", "http_server_config:http2 is not supported")]
    [InlineData("tls_server_config:cipher_suites:0", "tls_server_config:cipher_suites:0 is not supported")]
    [InlineData("tls_server_config:cert_fil", "tls_server_config:cert_fil is not a key")]
    public async Task AnUnknownOrUnsupportedKeyInTheSectionStopsTheStartNamingItAsTheFileDoes(string key, string named)
    {
        using IHost host = BuildHost(
            o => o.AddScrapeListener(0),
            new Dictionary<string, string?> { ["ScalableMetrics:ScrapeListener:" + key] = key.StartsWith("basic", StringComparison.Ordinal) ? BCrypt.Net.BCrypt.HashPassword(Password, 4) : "1" });

        InvalidOperationException failed = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync());

        Assert.Contains(named, failed.Message, StringComparison.Ordinal);
        Assert.Contains("ScalableMetrics:ScrapeListener", failed.Message, StringComparison.Ordinal);
    }

    // Port, Path, Host and WebConfigFile are the listener's own options, bound from the same
    // section (in any case, as the binder matches them): not web configuration keys to refuse.
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task TheListenersOwnOptionsInTheSectionAreNotRefusedAsWebConfigurationKeys(bool fromFile)
    {
        var settings = new Dictionary<string, string?>
        {
            ["ScalableMetrics:ScrapeListener:port"] = "0",
            ["ScalableMetrics:ScrapeListener:Path"] = "/scrape",
            ["ScalableMetrics:ScrapeListener:HOST"] = "127.0.0.1",
        };
        if (fromFile)
        {
            WriteWebConfig(Users((User, Password)));
            settings["ScalableMetrics:ScrapeListener:WebConfigFile"] = _webConfig;
        }
        else
        {
            settings["ScalableMetrics:ScrapeListener:basic_auth_users:" + User] = BCrypt.Net.BCrypt.HashPassword(Password, 4);
        }

        using IHost host = BuildHost(_ => { }, settings);
        await WhileServingAsync(host, async () =>
        {
            int port = Assert.NotNull(host.Services.GetRequiredService<ScrapeListener>().BoundPort);
            using HttpClient client = PlainHttpClient();
            using var anonymous = new HttpRequestMessage(HttpMethod.Get, new Uri($"http://127.0.0.1:{port}/scrape"));
            using HttpRequestMessage scraper = Get(host, User, Password, "http");
            scraper.RequestUri = new Uri($"http://127.0.0.1:{port}/scrape");

            using HttpResponseMessage refused = await client.SendAsync(anonymous);
            using HttpResponseMessage served = await client.SendAsync(scraper);

            Assert.Equal(HttpStatusCode.Unauthorized, refused.StatusCode);
            Assert.Equal(HttpStatusCode.OK, served.StatusCode);
        });
    }

    // docs/worker-services.md gives the file in code "(or ScalableMetrics:ScrapeListener:WebConfigFile)",
    // and the section's web configuration keys apply beside AddScrapeListener in code: so must the file's key.
    [Fact]
    public async Task TheWebConfigFileKeyOfTheSectionAppliesBesideAddScrapeListenerInCode()
    {
        WriteWebConfig(Users((User, Password)));
        using IHost host = BuildHost(
            o => o.AddScrapeListener(0),
            new Dictionary<string, string?> { ["ScalableMetrics:ScrapeListener:WebConfigFile"] = _webConfig });
        await WhileServingAsync(host, async () =>
        {
            using HttpClient client = PlainHttpClient();
            using HttpResponseMessage anonymous = await client.SendAsync(Get(host, null, null, "http"));

            Assert.Equal(HttpStatusCode.Unauthorized, anonymous.StatusCode);
        });
    }

    [Fact]
    public async Task AFileAndKeysInTheSectionTogetherStopTheStart()
    {
        WriteWebConfig(Users((User, Password)));
        using IHost host = BuildHost(
            o => o.AddScrapeListener(0).ScrapeListener!.WebConfigFile = _webConfig,
            new Dictionary<string, string?> { ["ScalableMetrics:ScrapeListener:basic_auth_users:other"] = BCrypt.Net.BCrypt.HashPassword("x", 4) });

        InvalidOperationException failed = await Assert.ThrowsAsync<InvalidOperationException>(() => host.StartAsync());

        Assert.Contains("give one of the two", failed.Message, StringComparison.Ordinal);
    }

    private string Tls(string extra = "") =>
        $"tls_server_config:\n  cert_file: server.pem\n  key_file: {_certificates.ServerKeyFile}\n{extra}";

    private static string Users(params (string User, string Password)[] users) =>
        "basic_auth_users:\n" + string.Concat(users.Select(u => $"  {u.User}: {BCrypt.Net.BCrypt.HashPassword(u.Password, 4)}\n"));

    // A well-formed bcrypt hash (cost 4) with its cost field rewritten.
    private static string HashOfCost(string password, string cost) =>
        "$2y$" + cost + BCrypt.Net.BCrypt.HashPassword(password, 4)[6..];

    private void WriteWebConfig(string yaml) => File.WriteAllText(_webConfig, yaml);

    private static HttpRequestMessage Get(IHost host, string? user, string? password, string scheme = "https")
    {
        int port = Assert.NotNull(host.Services.GetRequiredService<ScrapeListener>().BoundPort);
        var request = new HttpRequestMessage(HttpMethod.Get, new Uri($"{scheme}://127.0.0.1:{port}/metrics"));
        if (user is not null)
        {
            request.Headers.Authorization = new AuthenticationHeaderValue("Basic", Convert.ToBase64String(Encoding.UTF8.GetBytes(user + ":" + password)));
        }

        return request;
    }

    private IHost BuildHostReadingTheWebConfigFile() =>
        BuildHost(o => o.AddScrapeListener(0).ScrapeListener!.WebConfigFile = _webConfig);

    // Starts the host, makes the requests, and stops it however they end.
    private static async Task WhileServingAsync(IHost host, Func<Task> requests)
    {
        await host.StartAsync();
        await StopAfterAsync(host, requests);
    }

    // Makes the requests to a started host, then stops it however they end.
    private static async Task StopAfterAsync(IHost host, Func<Task> requests)
    {
        try
        {
            await requests();
        }
        finally
        {
            await host.StopAsync();
        }
    }

    // For the listener over plain HTTP.
    private static HttpClient PlainHttpClient() => new() { Timeout = TimeSpan.FromSeconds(30) };

    private static IHost BuildHost(Action<ScalableMetricsOptions> configure, Dictionary<string, string?>? settings = null)
    {
        var builder = new HostApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(settings ?? []);
        builder.AddScalableMetrics(configure);
        return builder.Build();
    }
}
