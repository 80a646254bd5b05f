using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace ScalableMetrics.Samples.Worker;

/// <summary>
/// Partitioned work on every core: one worker task per processor (a thread each), task <c>t</c>
/// of <c>T</c> processing items <c>t</c>, <c>t + T</c>, <c>t + 2T</c>, ... Each item is a number
/// whose Collatz sequence is walked to 1; every item adds 1 to the bound counter series
/// <c>worker.items{work.kind="collatz"}</c>, records its step count in the histogram
/// <c>worker.item.steps</c> and its number in the exponential (native) histogram
/// <c>worker.item.number</c>. All tasks add to the same series at once, which is what the
/// registry's per-processor partitions make cheap.
/// </summary>
public sealed class PartitionedWorkService : BackgroundService
{
    /// <summary>The step-count histogram's bucket boundaries, in steps.</summary>
    public static readonly IReadOnlyList<double> StepBoundaries = [10, 25, 50, 100, 150, 200, 300, 500];

    /// <summary>The classic boundaries of <c>worker.item.number</c>, counted beside its exponential
    /// buckets: its protobuf message carries both kinds, as a Prometheus 3 with
    /// <c>always_scrape_classic_histograms</c> stores them, and the text formats write these.</summary>
    public static readonly IReadOnlyList<double> NumberBoundaries = [10, 100, 1_000, 10_000, 100_000];

    // Items between two looks at the stopping token: cheap next to the items themselves.
    private const int ItemsPerBatch = 4096;

    private readonly PartitionedWorkOptions _options;
    private readonly ILogger<PartitionedWorkService> _logger;
    private readonly CounterSeries _items;
    private readonly HistogramSeries _steps;
    private readonly ExponentialHistogramSeries _numbers;

    /// <summary>Creates the service and its instruments.</summary>
    /// <param name="registry">The registry the instruments are created in.</param>
    /// <param name="options">How much work to do.</param>
    /// <param name="logger">Logs the start and the end of the work.</param>
    public PartitionedWorkService(MetricRegistry registry, IOptions<PartitionedWorkOptions> options, ILogger<PartitionedWorkService> logger)
    {
        _options = options.Value;
        _logger = logger;
        var kind = new KeyValuePair<string, object?>("work.kind", "collatz");
        _items = registry.CreateCounter("worker.items", "{item}", "Items processed by the worker tasks.").Bind(kind);
        _steps = registry.CreateHistogram("worker.item.steps", "{step}", "Collatz steps per item processed.", StepBoundaries).Bind(kind);

        // Item numbers run from 1 to Items: 2 to 2^20 in buckets of their own (153 at scale 3,
        // within the 241 a reading keeps at that scale), 1 in the zero bucket.
        _numbers = registry.CreateExponentialHistogram(
            "worker.item.number", null, "The numbers whose Collatz sequences were walked.", scale: 3, minValue: 2, maxValue: 1 << 20, classicBoundaries: NumberBoundaries).Bind(kind);
    }

    /// <inheritdoc/>
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        int tasks = _options.Tasks > 0 ? _options.Tasks : Environment.ProcessorCount;
        long items = _options.Items;
        if (_options.StartWhenFileExists is { } startFile)
        {
            _logger.LogInformation("Worker: starting when {StartFile} exists", startFile);
            try
            {
                while (!File.Exists(startFile))
                {
                    await Task.Delay(TimeSpan.FromMilliseconds(100), stoppingToken).ConfigureAwait(false);
                }
            }
            catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
            {
                return;
            }
        }

        _logger.LogInformation("Worker: {Tasks} tasks processing {Items} items", tasks, items > 0 ? items : "unbounded");

        var workers = new Task[tasks];
        for (int t = 0; t < tasks; t++)
        {
            int task = t;
            workers[t] = Task.Factory.StartNew(() => Work(task, tasks, items, stoppingToken), stoppingToken, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        }

        try
        {
            await Task.WhenAll(workers).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
            return;
        }

        _logger.LogInformation("Worker: processed {Items} items; idle until the host stops", _items.Read());
        await Task.Delay(Timeout.Infinite, stoppingToken).ConfigureAwait(false);
    }

    // Items task, task + tasks, ... below items (all of them when items is 0).
    private void Work(int task, int tasks, long items, CancellationToken stoppingToken)
    {
        long item = task;
        while (items == 0 || item < items)
        {
            stoppingToken.ThrowIfCancellationRequested();
            for (int i = 0; i < ItemsPerBatch && (items == 0 || item < items); i++, item += tasks)
            {
                _steps.Record(CollatzSteps(item + 1));
                _numbers.Record(item + 1);
                _items.Increment();
            }
        }
    }

    private static long CollatzSteps(long n)
    {
        long steps = 0;
        while (n != 1)
        {
            n = (n & 1) == 0 ? n >> 1 : (3 * n) + 1;
            steps++;
        }

        return steps;
    }
}
