using System.Collections.Concurrent;
using System.Diagnostics.Tracing;

namespace ScalableMetrics.Benchmarks;

/// <summary>
/// The runtime's allocation samples in this process (<c>GCAllocationTick</c>: one event per about
/// 100 KB allocated, naming the type whose allocation crossed the mark), added up by type while
/// <see cref="IsOn"/>: which types a scrape's bytes go to, in proportion, not exactly.
/// </summary>
/// <remarks>The runtime's own <see cref="EventSource"/> read in-process, so no tracing tool is
/// needed; a large-object-heap allocation is marked <c>(LOH)</c>.</remarks>
internal sealed class AllocationTicks : EventListener
{
    private const string RuntimeSource = "Microsoft-Windows-DotNETRuntime";
    private const EventKeywords GcKeyword = (EventKeywords)0x1;
    private const int LargeObjectHeap = 1;

    private readonly ConcurrentDictionary<string, long> _bytes = new(StringComparer.Ordinal);
    private volatile bool _on;

    /// <summary>Whether samples are added up now.</summary>
    public bool IsOn
    {
        get => _on;
        set => _on = value;
    }

    /// <summary>The sampled bytes by type, most first.</summary>
    public IEnumerable<KeyValuePair<string, long>> ByType => _bytes.OrderByDescending(static pair => pair.Value);

    /// <inheritdoc/>
    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == RuntimeSource)
        {
            EnableEvents(eventSource, EventLevel.Verbose, GcKeyword);
        }
    }

    /// <inheritdoc/>
    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        if (!_on || eventData.EventName?.StartsWith("GCAllocationTick", StringComparison.Ordinal) != true || eventData.Payload is null || eventData.PayloadNames is null)
        {
            return;
        }

        int type = eventData.PayloadNames.IndexOf("TypeName");
        int amount = eventData.PayloadNames.IndexOf("AllocationAmount64");
        int kind = eventData.PayloadNames.IndexOf("AllocationKind");
        if (type < 0 || amount < 0)
        {
            return;
        }

        string name = (eventData.Payload[type] as string ?? "?") + (kind >= 0 && Convert.ToInt32(eventData.Payload[kind], System.Globalization.CultureInfo.InvariantCulture) == LargeObjectHeap ? " (LOH)" : string.Empty);
        long bytes = Convert.ToInt64(eventData.Payload[amount], System.Globalization.CultureInfo.InvariantCulture);
        _bytes.AddOrUpdate(name, bytes, (_, total) => total + bytes);
    }
}
