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

    [DoesNotReturn]
    public static void ThrowNaN(string paramName) =>
        throw new ArgumentOutOfRangeException(paramName, double.NaN, "The value is NaN, which no sum or bucket can hold: a NaN measurement is a bug at its source.");

    [DoesNotReturn]
    public static void ThrowNotFinite(string paramName, double value) =>
        throw new ArgumentOutOfRangeException(paramName, value, "The value must be finite: NaN or an infinity would make the series' total NaN or infinite for good.");

    [DoesNotReturn]
    public static void ThrowBadDoubleIncrement(string paramName, double value) =>
        throw new ArgumentOutOfRangeException(
            paramName,
            value,
            double.IsNaN(value) || double.IsInfinity(value)
                ? "The increment must be finite: NaN or an infinity would make the counter's total NaN or infinite for good."
                : "A counter only goes up: the increment must be zero or positive.");
}
