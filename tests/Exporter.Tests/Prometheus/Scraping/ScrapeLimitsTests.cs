using System.Globalization;
using System.Net;
using System.Text;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry.Metrics;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary>
/// One set of limits, over HTTP with <c>AddScalableMetrics</c>: the scrape shows what the
/// registry keeps, its own overflow series and no other; a second reader of the
/// <c>MeterProvider</c> (standing for OTLP) sees the same, neither capped nor given an overflow
/// series of OpenTelemetry's own.
/// </summary>
public sealed class ScrapeLimitsTests
{
    [Fact]
    public async Task PastTheDefaultSeriesLimitOnlyOurOverflowSeriesHoldsTheRest()
    {
        await using Service service = await Service.StartAsync(_ => { });
        PartitionedCounter counter = service.Registry.CreateCounter("tagged");
        for (int i = 0; i < 5006; i++)
        {
            counter.Add(1, new KeyValuePair<string, object?>("n", i));
        }

        foreach (IReadOnlyList<PrometheusSample> samples in new[] { await service.ScrapeAsync(), await service.ReadSecondReaderAsync() })
        {
            PrometheusSample[] series = [.. samples.Where(s => s.Name == "tagged_total")];
            Assert.Equal(2001, series.Length);
            Assert.Equal("3006", Assert.Single(series, s => s.Labels.ContainsKey("otel_metric_overflow")).Value);
            Assert.Equal(5006, series.Sum(s => s.NumericValue));
        }
    }

    [Fact]
    public async Task ASeriesLimitOf5000Shows5000Series()
    {
        await using Service service = await Service.StartAsync(o => o.Registry.MaxSeriesPerInstrument = 5000);
        PartitionedCounter counter = service.Registry.CreateCounter("wide");
        for (int i = 0; i < 5000; i++)
        {
            counter.Add(i + 1, new KeyValuePair<string, object?>("n", i));
        }

        foreach (IReadOnlyList<PrometheusSample> samples in new[] { await service.ScrapeAsync(), await service.ReadSecondReaderAsync() })
        {
            PrometheusSample[] series = [.. samples.Where(s => s.Name == "wide_total")];
            Assert.Equal(5000, series.Length);
            Assert.DoesNotContain(series, s => s.Labels.ContainsKey("otel_metric_overflow"));
            Assert.Equal(5000.0 * 5001 / 2, series.Sum(s => s.NumericValue));
        }
    }

    [Theory]
    [InlineData(1200, 0)]
    [InlineData(400, 400)]
    public async Task MoreThan1000InstrumentsAllReachTheScrape(int counters, int operations)
    {
        await using Service service = await Service.StartAsync(o => o.Registry.MaxInstruments = counters + operations);
        for (int i = 0; i < counters; i++)
        {
            service.Registry.CreateCounter($"many.counter.{i}").Add(i + 1);
        }

        for (int i = 0; i < operations; i++)
        {
            service.Registry.CreateOperationData($"many.operation.{i}").Record(TimeSpan.FromSeconds(i));
        }

        IReadOnlyList<PrometheusSample> samples = await service.ScrapeAsync();
        Assert.All(Enumerable.Range(0, counters), i => Assert.Equal(i + 1, PrometheusText.Single(samples, $"many_counter_{i}_total").NumericValue));
        Assert.All(Enumerable.Range(0, operations), i =>
        {
            Assert.Equal("1", PrometheusText.Single(samples, $"many_operation_{i}_seconds_count").Value);
            Assert.Equal(i, PrometheusText.Single(samples, $"many_operation_{i}_seconds_sum").NumericValue);
        });

        // OpenTelemetry's stream limit: every instrument of the bridge (two per operation) reaches the second reader.
        IReadOnlyList<PrometheusSample> secondReader = await service.ReadSecondReaderAsync();
        Assert.Equal(counters + (2 * operations), secondReader.Select(s => s.Name).Distinct().Count());
    }

    /// <summary>The services of <c>AddScalableMetrics</c> behind a loopback endpoint, with a second reader.</summary>
    private sealed class Service : IAsyncDisposable
    {
        private readonly WebApplication _app;
        private readonly HttpClient _client;
        private readonly PrometheusPullExporter _secondReader;

        private Service(WebApplication app, HttpClient client, PrometheusPullExporter secondReader)
        {
            _app = app;
            _client = client;
            _secondReader = secondReader;
        }

        public MetricRegistry Registry => _app.Services.GetRequiredService<MetricRegistry>();

        public static async Task<Service> StartAsync(Action<ScalableMetricsOptions> configure)
        {
            var secondReader = new PrometheusPullExporter();
            WebApplicationBuilder builder = WebApplication.CreateBuilder();
            builder.WebHost.UseUrls("http://127.0.0.1:0");
            builder.Services.AddScalableMetrics(o =>
            {
                o.MeterName = "test.limits." + Guid.NewGuid().ToString("N");
                configure(o);
                o.ConfigureMeterProvider(b => b.AddReader(new BaseExportingMetricReader(secondReader)));
            });
            WebApplication app = builder.Build();
            app.MapScalableMetrics();
            await app.StartAsync();
            return new Service(app, new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) }, secondReader);
        }

        public async Task<IReadOnlyList<PrometheusSample>> ScrapeAsync()
        {
            using HttpResponseMessage response = await _client.GetAsync("/metrics");
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            return PrometheusText.Parse(await response.Content.ReadAsStringAsync());
        }

        public async Task<IReadOnlyList<PrometheusSample>> ReadSecondReaderAsync() =>
            PrometheusText.Parse(Encoding.UTF8.GetString(await _secondReader.ScrapeAsync()));

        public async ValueTask DisposeAsync()
        {
            _client.Dispose();
            await _app.StopAsync();
            await _app.DisposeAsync();
        }
    }
}
