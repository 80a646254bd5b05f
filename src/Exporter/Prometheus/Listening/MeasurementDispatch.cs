using System.Runtime.CompilerServices;
using System.Diagnostics.Metrics;
using Microsoft.Extensions.Diagnostics.Metrics;
using SdmInstrument = System.Diagnostics.Metrics.Instrument;

namespace ScalableMetrics.Exporter.Listening;

/// <summary>
/// The listener's measurement callbacks, one per numeric type System.Diagnostics.Metrics allows:
/// integer types go to <see cref="ListenedInstrument.Record(long, ReadOnlySpan{KeyValuePair{string, object}})"/>,
/// floating-point ones (and <see cref="decimal"/>) to the <see cref="double"/> overload, as
/// <see cref="ListenedType.IsFloatingPoint"/> tells them apart.
/// </summary>
/// <remarks>The callbacks are static and the per-instrument state is the listener's
/// <c>state</c> object, so a measurement allocates nothing here; the <c>typeof(T)</c> tests are
/// constants in each instantiation, which the JIT folds away.</remarks>
internal static class MeasurementDispatch
{
    public static void Attach(MeterListener listener)
    {
        listener.SetMeasurementEventCallback<byte>(OnMeasurement);
        listener.SetMeasurementEventCallback<short>(OnMeasurement);
        listener.SetMeasurementEventCallback<int>(OnMeasurement);
        listener.SetMeasurementEventCallback<long>(OnMeasurement);
        listener.SetMeasurementEventCallback<float>(OnMeasurement);
        listener.SetMeasurementEventCallback<double>(OnMeasurement);
        listener.SetMeasurementEventCallback<decimal>(OnMeasurement);
    }

    /// <summary>The same callbacks, for the listener .NET's metrics rules drive (<c>IMetricsListener.GetMeasurementHandlers</c>).</summary>
    public static MeasurementHandlers CreateHandlers() => new()
    {
        ByteHandler = OnMeasurement,
        ShortHandler = OnMeasurement,
        IntHandler = OnMeasurement,
        LongHandler = OnMeasurement,
        FloatHandler = OnMeasurement,
        DoubleHandler = OnMeasurement,
        DecimalHandler = OnMeasurement,
    };

    private static void OnMeasurement<T>(SdmInstrument instrument, T measurement, ReadOnlySpan<KeyValuePair<string, object?>> tags, object? state)
        where T : struct
    {
        if (state is not ListenedInstrument listened)
        {
            return;
        }

        if (typeof(T) == typeof(long))
        {
            listened.Record(Unsafe.As<T, long>(ref measurement), tags);
        }
        else if (typeof(T) == typeof(int))
        {
            listened.Record((long)Unsafe.As<T, int>(ref measurement), tags);
        }
        else if (typeof(T) == typeof(short))
        {
            listened.Record((long)Unsafe.As<T, short>(ref measurement), tags);
        }
        else if (typeof(T) == typeof(byte))
        {
            listened.Record((long)Unsafe.As<T, byte>(ref measurement), tags);
        }
        else if (typeof(T) == typeof(double))
        {
            listened.Record(Unsafe.As<T, double>(ref measurement), tags);
        }
        else if (typeof(T) == typeof(float))
        {
            listened.Record((double)Unsafe.As<T, float>(ref measurement), tags);
        }
        else if (typeof(T) == typeof(decimal))
        {
            listened.Record((double)Unsafe.As<T, decimal>(ref measurement), tags);
        }
    }
}
