using System.Collections.Concurrent;
using System.Security.Cryptography;
using System.Text;

namespace ScalableMetrics.Exporter.Prometheus.Scraping.Security;

/// <summary>
/// Checks a request's basic-auth credentials against <c>basic_auth_users</c>' bcrypt hashes, as
/// prometheus/exporter-toolkit does (<c>web/handler.go</c>): an unknown user is checked against a
/// dummy hash of the same cost, so that it takes as long as a wrong password and the answer's time
/// does not tell which names exist; one bcrypt check at a time, so that a flood of guesses costs one
/// core, not all; and each (user, hash, password) outcome remembered, by a SHA-256 of the three, so
/// that a scraper's every scrape does not pay bcrypt's deliberate cost. Thread-safe.
/// </summary>
internal sealed class BasicAuthUsers
{
    // Bounded: a client trying many passwords cannot grow it; cleared when full.
    private const int MaxRemembered = 256;

    private readonly IReadOnlyDictionary<string, string> _users;
    private readonly string _dummyHash;
    private readonly Func<string, string, bool> _verify;
    private readonly ConcurrentDictionary<string, bool> _outcomes = new(StringComparer.Ordinal);
    private readonly Lock _bcrypt = new();

    /// <param name="users">User names to bcrypt hashes; not empty.</param>
    /// <param name="verify">Checks a password against a hash: bcrypt's, unless a test counts the calls.</param>
    public BasicAuthUsers(IReadOnlyDictionary<string, string> users, Func<string, string, bool>? verify = null)
    {
        _users = users;
        _verify = verify ?? (static (password, hash) => BCrypt.Net.BCrypt.Verify(password, hash));

        // A hash of a random password at the users' highest cost (the two digits after "$2?$").
        int cost = users.Values.Max(static hash => int.Parse(hash.AsSpan(hash.IndexOf('$', 1) + 1, 2), System.Globalization.CultureInfo.InvariantCulture));
        _dummyHash = BCrypt.Net.BCrypt.HashPassword(Convert.ToBase64String(RandomNumberGenerator.GetBytes(16)), cost);
    }

    /// <summary>Whether <paramref name="user"/> is a configured user and <paramref name="password"/> its password.</summary>
    public bool Check(string user, string password)
    {
        bool known = _users.TryGetValue(user, out string? hash);
        hash ??= _dummyHash;
        string key = Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes(user + "\0" + hash + "\0" + password)));
        if (!_outcomes.TryGetValue(key, out bool matches))
        {
            lock (_bcrypt)
            {
                matches = _verify(password, hash);
            }

            if (_outcomes.Count >= MaxRemembered)
            {
                _outcomes.Clear();
            }

            _outcomes[key] = matches;
        }

        return known && matches;
    }

    /// <summary>The user and password of an <c>Authorization: Basic</c> header (RFC 7617), or false.</summary>
    public static bool TryRead(string? authorization, out string user, out string password)
    {
        user = password = string.Empty;
        const string Scheme = "Basic ";
        if (authorization is null || !authorization.StartsWith(Scheme, StringComparison.OrdinalIgnoreCase))
        {
            return false;
        }

        byte[] bytes;
        try
        {
            bytes = Convert.FromBase64String(authorization[Scheme.Length..].Trim());
        }
        catch (FormatException)
        {
            return false;
        }

        string text = Encoding.UTF8.GetString(bytes);
        int colon = text.IndexOf(':', StringComparison.Ordinal);
        if (colon < 0)
        {
            return false;
        }

        user = text[..colon];
        password = text[(colon + 1)..];
        return true;
    }
}
