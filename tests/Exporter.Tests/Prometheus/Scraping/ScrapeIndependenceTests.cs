using System.Diagnostics.Metrics;
using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using ScalableMetrics.Exporter.OpenTelemetry;

namespace ScalableMetrics.Exporter.Tests.Prometheus.Scraping;

/// <summary>Scrapes share no buffer or flag with the <c>MeterProvider</c>'s other collections.</summary>
public sealed class ScrapeIndependenceTests
{
    private const int Scrapes = 200;

    [Fact]
    public async Task ScrapesDuringForceFlushEachAnswer200WithAWholeBody()
    {
        string otherMeterName = "test.flush.other." + Guid.NewGuid().ToString("N");
        using var otherMeter = new Meter(otherMeterName);
        WebApplicationBuilder builder = WebApplication.CreateBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddScalableMetrics(o =>
        {
            o.MeterName = "test.flush." + Guid.NewGuid().ToString("N");
            o.ConfigureMeterProvider(b => b.AddMeter(otherMeterName));

            // The scrapes are counted sample by sample: the registry's and the other meter's only.
            o.ExportSelfMetrics = false;
        });
        await using WebApplication app = builder.Build();
        app.MapScalableMetrics();
        await app.StartAsync();
        MetricRegistry registry = app.Services.GetRequiredService<MetricRegistry>();
        for (int i = 0; i < 20; i++)
        {
            registry.CreateCounter($"flushed.{i}").Add(i);
            otherMeter.CreateCounter<long>($"other.{i}").Add(i);
        }

        MeterProvider meterProvider = OpenTelemetryPart.Of(app.Services)!.MeterProvider.Provider;
        using var client = new HttpClient { BaseAddress = new Uri(Assert.Single(app.Urls)) };
        using var done = new CancellationTokenSource();
        int flushes = 0;
        Task flusher = Task.Run(() =>
        {
            while (!done.IsCancellationRequested)
            {
                meterProvider.ForceFlush();
                flushes++;
            }
        });

        try
        {
            for (int i = 0; i < Scrapes; i++)
            {
                using HttpResponseMessage response = await client.GetAsync("/metrics");
                Assert.Equal(HttpStatusCode.OK, response.StatusCode);
                IReadOnlyList<PrometheusSample> samples = PrometheusText.Parse(await response.Content.ReadAsStringAsync());
                Assert.Equal(40, samples.Count(s => s.Name != "target_info"));
                Assert.Equal("19", PrometheusText.Single(samples, "flushed_19_total").Value);
                Assert.Equal("19", PrometheusText.Single(samples, "other_19_total").Value);
            }
        }
        finally
        {
            await done.CancelAsync();
            await flusher;
        }

        Assert.True(flushes > 0);
        await app.StopAsync();
    }
}
