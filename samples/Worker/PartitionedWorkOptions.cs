namespace ScalableMetrics.Samples.Worker;

/// <summary>How much work <see cref="PartitionedWorkService"/> does, bound from the configuration section <c>Worker</c>.</summary>
public sealed class PartitionedWorkOptions
{
    /// <summary>The configuration section the options are bound from: <c>Worker</c>.</summary>
    public const string ConfigurationSectionName = "Worker";

    /// <summary>The items to process in all, split evenly across the worker tasks, after which the
    /// service idles until the host stops; 0 (the default) to process items until it stops.</summary>
    /// <remarks>With a fixed number the counter's final value is known exactly, which the end-to-end check reads back.</remarks>
    public long Items { get; set; }

    /// <summary>A file whose appearance starts the work: the service waits for it before its first item; null (the default) to start at once.</summary>
    /// <remarks>Its series are exported at zero meanwhile: a scraper that stores them first, and then
    /// creates the file, reads the whole work as one increase (the end-to-end check's <c>rate()</c>
    /// does), however fast or slow the machine.</remarks>
    public string? StartWhenFileExists { get; set; }

    /// <summary>The worker tasks, each on a thread of its own; 0 (the default) for one per processor (<see cref="Environment.ProcessorCount"/>).</summary>
    public int Tasks { get; set; }
}
