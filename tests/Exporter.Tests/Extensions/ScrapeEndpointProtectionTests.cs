using System.Net;
using System.Net.Http.Headers;
using System.Security.Claims;
using System.Security.Cryptography;
using System.Text;
using System.Text.Encodings.Web;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace ScalableMetrics.Exporter.Tests.Extensions;

/// <summary>
/// The ASP.NET Core endpoint protected as docs/prometheus.md shows: <c>RequireAuthorization</c>
/// with a bearer-token scheme (Prometheus' <c>authorization: credentials</c>) and a basic-auth
/// scheme (<c>basic_auth</c>), and <c>RequireHost</c>; over loopback, a few requests each.
/// </summary>
public sealed class ScrapeEndpointProtectionTests
{
    private const string Token = "scrape-token-0123456789";
    private const string User = "prometheus";
    private const string Password = "s3cret";

    [Theory]
    [InlineData(null, HttpStatusCode.Unauthorized)]
    [InlineData("Bearer " + Token, HttpStatusCode.OK)]
    [InlineData("Bearer wrong-token", HttpStatusCode.Unauthorized)]
    [InlineData("Basic cHJvbWV0aGV1czpzM2NyZXQ=", HttpStatusCode.OK)]
    [InlineData("Basic cHJvbWV0aGV1czp3cm9uZw==", HttpStatusCode.Unauthorized)]
    public async Task RequireAuthorizationServesTheScrapeOnlyToABearerTokenOrBasicCredentials(string? authorization, HttpStatusCode expected)
    {
        await using WebApplication app = await StartAsync(endpoint => endpoint.RequireAuthorization("scrape"));
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri("/metrics", UriKind.Relative));
        if (authorization is not null)
        {
            request.Headers.TryAddWithoutValidation("Authorization", authorization);
        }

        using HttpResponseMessage response = await client.SendAsync(request);

        Assert.Equal(expected, response.StatusCode);
        string body = await response.Content.ReadAsStringAsync();
        if (expected == HttpStatusCode.OK)
        {
            Assert.Contains("\nprotected_items_total{otel_scope_name=\"ScalableMetrics\"} 5\n", "\n" + body);
        }
        else
        {
            Assert.Equal(["Bearer", "Basic"], response.Headers.WwwAuthenticate.Select(h => h.Scheme));
            Assert.DoesNotContain("protected_items", body, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData("metrics.internal", HttpStatusCode.OK)]
    [InlineData("app.example", HttpStatusCode.NotFound)]
    public async Task RequireHostServesTheScrapeOnlyUnderItsHostName(string host, HttpStatusCode expected)
    {
        await using WebApplication app = await StartAsync(endpoint => endpoint.RequireHost("metrics.internal"));
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri("/metrics", UriKind.Relative));
        request.Headers.Host = host;

        using HttpResponseMessage response = await client.SendAsync(request);

        Assert.Equal(expected, response.StatusCode);
    }

    private static async Task<WebApplication> StartAsync(Action<IEndpointConventionBuilder> protect)
    {
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Logging.ClearProviders();
        builder.Services.AddScalableMetrics(o => o.ExportSelfMetrics = false);
        string hash = BCrypt.Net.BCrypt.HashPassword(Password, 4);
        builder.Services.AddAuthentication()
            .AddScheme<TokenOptions, BearerTokenHandler>("Bearer", o => o.Token = Token)
            .AddScheme<TokenOptions, BasicHandler>("Basic", o => o.Token = User + ":" + hash);
        builder.Services.AddAuthorization(o => o.AddPolicy("scrape", p => p.AddAuthenticationSchemes("Bearer", "Basic").RequireAuthenticatedUser()));
        WebApplication app = builder.Build();
        protect(app.MapScalableMetrics());
        app.Services.GetRequiredService<MetricRegistry>().CreateCounter("protected.items").Add(5);
        await app.StartAsync();
        return app;
    }

    private sealed class TokenOptions : AuthenticationSchemeOptions
    {
        public string Token { get; set; } = string.Empty;
    }

    /// <summary><c>Authorization: Bearer TOKEN</c>, compared in constant time.</summary>
    private sealed class BearerTokenHandler(IOptionsMonitor<TokenOptions> options, ILoggerFactory logger, UrlEncoder encoder)
        : AuthenticationHandler<TokenOptions>(options, logger, encoder)
    {
        protected override Task<AuthenticateResult> HandleAuthenticateAsync()
        {
            string header = Request.Headers.Authorization.ToString();
            if (!header.StartsWith("Bearer ", StringComparison.Ordinal))
            {
                return Task.FromResult(AuthenticateResult.NoResult());
            }

            byte[] given = Encoding.UTF8.GetBytes(header["Bearer ".Length..]);
            return Task.FromResult(CryptographicOperations.FixedTimeEquals(given, Encoding.UTF8.GetBytes(Options.Token))
                ? AuthenticateResult.Success(new AuthenticationTicket(new ClaimsPrincipal(new ClaimsIdentity([new Claim(ClaimTypes.Name, "scraper")], Scheme.Name)), Scheme.Name))
                : AuthenticateResult.Fail("wrong token"));
        }

        protected override Task HandleChallengeAsync(AuthenticationProperties properties)
        {
            Response.StatusCode = 401;
            Response.Headers.Append("WWW-Authenticate", "Bearer");
            return Task.CompletedTask;
        }
    }

    /// <summary><c>Authorization: Basic</c> against one user's bcrypt hash.</summary>
    private sealed class BasicHandler(IOptionsMonitor<TokenOptions> options, ILoggerFactory logger, UrlEncoder encoder)
        : AuthenticationHandler<TokenOptions>(options, logger, encoder)
    {
        protected override Task<AuthenticateResult> HandleAuthenticateAsync()
        {
            if (!AuthenticationHeaderValue.TryParse(Request.Headers.Authorization, out AuthenticationHeaderValue? header) || header.Scheme != "Basic" || header.Parameter is null)
            {
                return Task.FromResult(AuthenticateResult.NoResult());
            }

            string[] given = Encoding.UTF8.GetString(Convert.FromBase64String(header.Parameter)).Split(':', 2);
            string[] expected = Options.Token.Split(':', 2);
            return Task.FromResult(given.Length == 2 && given[0] == expected[0] && BCrypt.Net.BCrypt.Verify(given[1], expected[1])
                ? AuthenticateResult.Success(new AuthenticationTicket(new ClaimsPrincipal(new ClaimsIdentity([new Claim(ClaimTypes.Name, given[0])], Scheme.Name)), Scheme.Name))
                : AuthenticateResult.Fail("wrong credentials"));
        }

        protected override Task HandleChallengeAsync(AuthenticationProperties properties)
        {
            Response.StatusCode = 401;
            Response.Headers.Append("WWW-Authenticate", "Basic realm=\"metrics\"");
            return Task.CompletedTask;
        }
    }
}
