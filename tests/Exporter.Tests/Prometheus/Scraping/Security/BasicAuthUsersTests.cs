using ScalableMetrics.Exporter.Prometheus.Scraping.Security;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping.Security;

/// <summary>
/// The basic-auth check's shape, counted rather than timed: an unknown user costs one bcrypt check
/// against a hash of the users' cost, as a wrong password does, so the answer's time cannot tell
/// which user names exist; a repeated outcome costs none.
/// </summary>
public sealed class BasicAuthUsersTests
{
    private static readonly string s_hash = BCrypt.Net.BCrypt.HashPassword("right", 5);

    [Fact]
    public void AnUnknownUserCostsOneCheckAgainstAHashOfTheSameCost()
    {
        var checks = new List<string>();
        var users = new BasicAuthUsers(new Dictionary<string, string> { ["prometheus"] = s_hash }, Counting(checks));

        Assert.False(users.Check("nobody", "right"));
        Assert.False(users.Check("prometheus", "wrong"));

        Assert.Equal(2, checks.Count);
        Assert.NotEqual(s_hash, checks[0]);
        Assert.Equal(s_hash[..7], checks[0][..7]);
        Assert.Equal(s_hash, checks[1]);
    }

    [Fact]
    public void ARepeatedOutcomeIsRemembered()
    {
        var checks = new List<string>();
        var users = new BasicAuthUsers(new Dictionary<string, string> { ["prometheus"] = s_hash }, Counting(checks));

        Assert.True(users.Check("prometheus", "right"));
        Assert.True(users.Check("prometheus", "right"));
        Assert.False(users.Check("prometheus", "wrong"));
        Assert.False(users.Check("prometheus", "wrong"));

        Assert.Equal(2, checks.Count);
    }

    [Fact]
    public void TakesTheHashesHtpasswdWrites()
    {
        // htpasswd -B writes the $2y$ prefix, the same algorithm as $2a$ and $2b$.
        string htpasswd = "$2y$" + BCrypt.Net.BCrypt.HashPassword("right", 4)[4..];
        var users = new BasicAuthUsers(new Dictionary<string, string> { ["prometheus"] = htpasswd });

        Assert.True(users.Check("prometheus", "right"));
        Assert.False(users.Check("prometheus", "wrong"));
    }

    [Theory]
    [InlineData("Basic cHJvbWV0aGV1czpzM2NyZXQ=", true, "prometheus", "s3cret")]
    [InlineData("basic cHJvbWV0aGV1czphOmI=", true, "prometheus", "a:b")]
    [InlineData("Bearer cHJvbWV0aGV1czpzM2NyZXQ=", false, "", "")]
    [InlineData("Basic not base64!", false, "", "")]
    [InlineData("Basic bm9jb2xvbg==", false, "", "")]
    [InlineData(null, false, "", "")]
    public void ReadsTheBasicSchemesUserAndPassword(string? header, bool read, string user, string password)
    {
        Assert.Equal(read, BasicAuthUsers.TryRead(header, out string readUser, out string readPassword));
        Assert.Equal((user, password), (readUser, readPassword));
    }

    private static Func<string, string, bool> Counting(List<string> checks) => (password, hash) =>
    {
        checks.Add(hash);
        return BCrypt.Net.BCrypt.Verify(password, hash);
    };
}
