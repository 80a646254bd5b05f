using System.Diagnostics.CodeAnalysis;

namespace ScalableMetrics;

/// <summary>
/// Throws out of line, so that the hot methods that validate their input stay small enough to
/// inline (after Disruptor-net's ThrowHelper).
/// </summary>
internal static class ThrowHelper
{
    [DoesNotReturn]
    public static void ThrowNegativeIncrement(string paramName, long value) =>
        throw new ArgumentOutOfRangeException(paramName, value, "A counter only goes up: the increment must be zero or positive.");

    [DoesNotReturn]
    public static void ThrowNegativeDuration(string paramName, object value) =>
        throw new ArgumentOutOfRangeException(paramName, value, "An elapsed time must be zero or positive.");

    [DoesNotReturn]
    public static void ThrowElapsedOutOfRange(string paramName, object value, bool negative) =>
        throw new ArgumentOutOfRangeException(
            paramName,
            value,
            negative ? "An elapsed time must be zero or positive." : $"An elapsed time must be at most {nameof(OperationData)}.{nameof(OperationData.MaxElapsed)} ({OperationData.MaxElapsed}).");
}
