using System.Globalization;
using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.Hosting;
using ScalableMetrics.Samples.Worker;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>samples/Worker, started in-process: its partitioned work, scraped through its standalone listener.</summary>
public sealed class WorkerSampleTests
{
    [Fact]
    public async Task Worker_tasks_add_exactly_the_configured_items_and_the_listener_serves_them()
    {
        const int Items = 100_003;
        int port = FreeLoopbackPort();
        using IHost host = WorkerApp.Create([
            "--ScalableMetrics:ScrapeListener:Port=" + port.ToString(CultureInfo.InvariantCulture),
            "--Worker:Items=" + Items.ToString(CultureInfo.InvariantCulture),
            // More tasks than items divide evenly among: the split must still cover each item once.
            "--Worker:Tasks=7",
        ]);
        await host.StartAsync();
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
        }
        finally
        {
            await host.StopAsync();
        }
    }

    private static int FreeLoopbackPort()
    {
        var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int port = ((IPEndPoint)listener.LocalEndpoint).Port;
        listener.Stop();
        return port;
    }
}
