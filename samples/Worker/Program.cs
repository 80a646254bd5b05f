using Microsoft.Extensions.Hosting;
using ScalableMetrics.Samples.Worker;

// Serves the scrape at http://127.0.0.1:9464/metrics unless ScalableMetrics:ScrapeListener says
// otherwise; Worker:Items=N does exactly N items then idles (see WorkerApp).
await WorkerApp.Create(args).RunAsync();
