using System.Globalization;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using ScalableMetrics.Exporter.Prometheus.Scraping;
using ScalableMetrics.Exporter.Tests.Prometheus.Exposition;
using ScalableMetrics.Samples.Worker;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>samples/Worker, started in-process: its partitioned work, scraped through its standalone listener.</summary>
public sealed class WorkerSampleTests
{
    [Fact]
    public async Task WorkerTasksAddExactlyTheConfiguredItemsAndTheListenerServesThem()
    {
        const int Items = 100_003;
        using IHost host = WorkerApp.Create([
            "--ScalableMetrics:ScrapeListener:Port=0",
            "--Worker:Items=" + Items.ToString(CultureInfo.InvariantCulture),
            // More tasks than items divide evenly among: the split must still cover each item once.
            "--Worker:Tasks=7",
        ]);
        await host.StartAsync();
        int port = Assert.NotNull(host.Services.GetRequiredService<ScrapeListener>().BoundPort);
        try
        {
            using var client = new HttpClient { Timeout = TimeSpan.FromSeconds(30) };
            string expected = $"worker_items_total{{otel_scope_name=\"ScalableMetrics\",work_kind=\"collatz\"}} {Items}";
            string body = "";

            // The tasks run on their own threads: scrape until they are done, within a bound
            // generous for a busy machine (the work is about 10 ms of CPU).
            DateTime deadline = DateTime.UtcNow.AddSeconds(60);
            while (!body.Contains(expected, StringComparison.Ordinal) && DateTime.UtcNow < deadline)
            {
                await Task.Delay(50);
                body = await client.GetStringAsync(new Uri($"http://127.0.0.1:{port}/metrics"));
            }

            Assert.Contains(expected, body);
            Assert.Contains($"worker_item_steps_count{{otel_scope_name=\"ScalableMetrics\",work_kind=\"collatz\"}} {Items}", body);
            Assert.Contains($"worker_item_steps_bucket{{otel_scope_name=\"ScalableMetrics\",work_kind=\"collatz\",le=\"+Inf\"}} {Items}", body);

            // The native histogram of item numbers 1..Items: in text as its buckets, in protobuf native.
            Assert.Contains($"worker_item_number_count{{otel_scope_name=\"ScalableMetrics\",work_kind=\"collatz\"}} {Items}", body);
            Assert.Equal((double)Items * (Items + 1) / 2, PrometheusText.Single(PrometheusText.Parse(body), "worker_item_number_sum").NumericValue);
            using var request = new HttpRequestMessage(HttpMethod.Get, new Uri($"http://127.0.0.1:{port}/metrics"));
            request.Headers.TryAddWithoutValidation("Accept", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited");
            using HttpResponseMessage response = await client.SendAsync(request);
            Assert.Equal(PrometheusScraper.ProtobufContentType + "; escaping=underscores", response.Content.Headers.ContentType?.ToString());
            ProtoMessage native = ProtoMessage.ParseDelimited(await response.Content.ReadAsByteArrayAsync()).Single(f => f.String(1) == "worker_item_number").Message(4).Message(7);
            Assert.Equal((3L, (ulong)Items, 1UL), (ProtoMessage.ZigZag(native.Varint(5)), native.Varint(1), native.Varint(7)));

            // Its classic buckets in the same message, and in text: the items at or below each boundary.
            Assert.Equal(
                PartitionedWorkService.NumberBoundaries.Select(b => (b, (ulong)Math.Min(b, Items))),
                native.Messages(3).Select(bucket => (bucket.Double(2), bucket.Varint(1))));
            Assert.Contains($"worker_item_number_bucket{{otel_scope_name=\"ScalableMetrics\",work_kind=\"collatz\",le=\"100\"}} {Math.Min(100, Items)}", body);
        }
        finally
        {
            await host.StopAsync();
        }
    }
}
