using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using ScalableMetrics.Exporter.Listening;

namespace ScalableMetrics.Exporter.Tests.Listening;

public class MeterOptionsTests
{
    [Theory]
    [InlineData("Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Hosting", true)]
    [InlineData("Microsoft.AspNetCore.Hosting", "microsoft.aspnetcore.hosting", true)]
    [InlineData("Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Hosting.Extra", false)]
    [InlineData("MyCompany.*", "MyCompany.Orders", true)]
    [InlineData("MyCompany.*", "mycompany.orders.eu", true)]
    [InlineData("MyCompany.*", "MyCompany", false)]
    [InlineData("MyCompany.*", "OtherMyCompany.Orders", false)]
    [InlineData("*.Http", "System.Net.Http", true)]
    [InlineData("System.?untime", "System.Runtime", true)]
    [InlineData("System.?untime", "System.RRuntime", false)]
    [InlineData("a.b", "aXb", false)]
    [InlineData("*", "anything", true)]
    public void NamesMatchAsOpenTelemetryAddMeterDoes(string pattern, string meterName, bool matches) =>
        Assert.Equal(matches, new MeterNameMatcher([pattern]).Matches(meterName));

    [Fact]
    public void AddMeterAppendsNamesAndChains()
    {
        var options = new ScalableMetricsOptions();
        Assert.Same(options, options.AddMeter("A", "B.*").AddMeter("C"));
        Assert.Equal(["A", "B.*", "C"], options.Meters);
    }

    [Fact]
    public void AddMeterRefusesNullAndEmptyNamesAndAddsNone()
    {
        var options = new ScalableMetricsOptions();
        Assert.Equal("names", Assert.Throws<ArgumentNullException>(() => options.AddMeter(null!)).ParamName);
        Assert.Equal("names", Assert.Throws<ArgumentNullException>(() => options.AddMeter("A", null!)).ParamName);
        Assert.Equal("names", Assert.Throws<ArgumentException>(() => options.AddMeter("A", " ")).ParamName);
        Assert.Empty(options.Meters);
    }

    [Fact]
    public void MetersAreBoundFromConfigurationAndEmptyOnesAreInvalid()
    {
        IConfiguration configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["ScalableMetrics:Meters:0"] = "System.Runtime",
            ["ScalableMetrics:Meters:1"] = "MyCompany.*",
        }).Build();
        var services = new ServiceCollection();
        services.AddOptions<ScalableMetricsOptions>().Bind(configuration.GetSection("ScalableMetrics"));
        services.AddScalableMetrics(o => o.AddMeter("Microsoft.AspNetCore.Hosting"));
        using ServiceProvider provider = services.BuildServiceProvider();
        Assert.Equal(["System.Runtime", "MyCompany.*", "Microsoft.AspNetCore.Hosting"], provider.GetRequiredService<IOptions<ScalableMetricsOptions>>().Value.Meters);

        var invalid = new ScalableMetricsOptions();
        invalid.Meters.Add(string.Empty);
        ValidateOptionsResult result = new ScalableMetrics.Exporter.Hosting.ScalableMetricsOptionsValidator().Validate(null, invalid);
        Assert.True(result.Failed);
        Assert.Contains("Meters[0]", result.FailureMessage, StringComparison.Ordinal);
    }
}
