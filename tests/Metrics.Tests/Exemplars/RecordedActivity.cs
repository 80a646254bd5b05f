using System.Buffers.Binary;
using System.Diagnostics;

namespace ScalableMetrics.Tests.Exemplars;

/// <summary>Activities for exemplar tests, started without a listener, and trace ids that carry a value so that a torn exemplar is detectable.</summary>
internal static class RecordedActivity
{
    /// <summary>Starts an activity (it becomes <see cref="Activity.Current"/>) whose trace flags say recorded, or not.</summary>
    public static Activity Start(bool recorded = true)
    {
        var activity = new Activity("exemplar.test");
        activity.SetIdFormat(ActivityIdFormat.W3C);
        activity.Start();
        activity.ActivityTraceFlags = recorded ? ActivityTraceFlags.Recorded : ActivityTraceFlags.None;
        return activity;
    }

    /// <summary>A recorded activity, not started, whose trace id encodes <paramref name="value"/> twice (<see cref="ValueOf"/>).</summary>
    public static Activity Carrying(double value)
    {
        Span<byte> bytes = stackalloc byte[16];
        BinaryPrimitives.WriteDoubleLittleEndian(bytes, value);
        BinaryPrimitives.WriteDoubleLittleEndian(bytes[8..], value);
        var activity = new Activity("exemplar.test.carrying");
        activity.SetParentId(ActivityTraceId.CreateFromBytes(bytes), ActivitySpanId.CreateRandom(), ActivityTraceFlags.Recorded);
        activity.SetIdFormat(ActivityIdFormat.W3C);
        return activity;
    }

    /// <summary>The value a trace id of <see cref="Carrying"/> encodes, or NaN where its two halves differ.</summary>
    public static double ValueOf(ActivityTraceId traceId)
    {
        Span<byte> bytes = stackalloc byte[16];
        traceId.CopyTo(bytes);
        double first = BinaryPrimitives.ReadDoubleLittleEndian(bytes);
        double second = BinaryPrimitives.ReadDoubleLittleEndian(bytes[8..]);
        return first.Equals(second) ? first : double.NaN;
    }
}
