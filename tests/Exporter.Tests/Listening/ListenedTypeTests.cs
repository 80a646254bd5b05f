using System.Diagnostics.Metrics;
using System.Reflection;
using System.Runtime.ExceptionServices;
using ScalableMetrics.Exporter.Listening;
using ScalableMetrics.Naming;

namespace ScalableMetrics.Exporter.Tests.Listening;

/// <summary>
/// The one table from .NET's instrument types to the registry's kinds: every instrument type the
/// registry has a kind for, of every value type .NET allows, and nothing else.
/// </summary>
public sealed class ListenedTypeTests
{
    [Theory]
    [InlineData(typeof(byte), false)]
    [InlineData(typeof(short), false)]
    [InlineData(typeof(int), false)]
    [InlineData(typeof(long), false)]
    [InlineData(typeof(float), true)]
    [InlineData(typeof(double), true)]
    [InlineData(typeof(decimal), true)]
    public void EveryInstrumentTypeOfAValueTypeHasItsKind(Type valueType, bool isFloatingPoint)
    {
        using var meter = new Meter("test.listened.type");

        try
        {
            typeof(ListenedTypeTests).GetMethod(nameof(AssertKinds), BindingFlags.NonPublic | BindingFlags.Static)!
                .MakeGenericMethod(valueType)
                .Invoke(null, [meter, isFloatingPoint]);
        }
        catch (TargetInvocationException e) when (e.InnerException is not null)
        {
            // The assertion's own failure, not the reflection's wrapper.
            ExceptionDispatchInfo.Throw(e.InnerException);
        }
    }

    [Fact]
    public void ASumExportsAsACounterWhereMonotonicAndAsAGaugeWhereNot()
    {
        Assert.Equal(ExportedKind.Counter, new ListenedType(ListenedKind.Counter, false).ExportedKind);
        Assert.Equal(ExportedKind.Counter, new ListenedType(ListenedKind.ObservableCounter, true).ExportedKind);
        Assert.Equal(ExportedKind.Histogram, new ListenedType(ListenedKind.Histogram, true).ExportedKind);
        Assert.Equal(ExportedKind.Gauge, new ListenedType(ListenedKind.UpDownCounter, false).ExportedKind);
        Assert.Equal(ExportedKind.Gauge, new ListenedType(ListenedKind.ObservableUpDownCounter, false).ExportedKind);
        Assert.Equal(ExportedKind.Gauge, new ListenedType(ListenedKind.Gauge, true).ExportedKind);
        Assert.Equal(ExportedKind.Gauge, new ListenedType(ListenedKind.ObservableGauge, true).ExportedKind);
    }

    [Fact]
    public void AnInstrumentTypeOfNoKindIsNotInTheTable()
    {
        using var meter = new Meter("test.listened.type.other");

        Assert.Null(ListenedType.Of(new OwnInstrument(meter)));
    }

    private static void AssertKinds<T>(Meter meter, bool isFloatingPoint)
        where T : struct
    {
        Assert.Equal(new ListenedType(ListenedKind.Counter, isFloatingPoint), ListenedType.Of(meter.CreateCounter<T>("c")));
        Assert.Equal(new ListenedType(ListenedKind.UpDownCounter, isFloatingPoint), ListenedType.Of(meter.CreateUpDownCounter<T>("u")));
        Assert.Equal(new ListenedType(ListenedKind.Histogram, isFloatingPoint), ListenedType.Of(meter.CreateHistogram<T>("h")));
        Assert.Equal(new ListenedType(ListenedKind.Gauge, isFloatingPoint), ListenedType.Of(meter.CreateGauge<T>("g")));
        Assert.Equal(new ListenedType(ListenedKind.ObservableCounter, isFloatingPoint), ListenedType.Of(meter.CreateObservableCounter("oc", static () => default(T))));
        Assert.Equal(new ListenedType(ListenedKind.ObservableUpDownCounter, isFloatingPoint), ListenedType.Of(meter.CreateObservableUpDownCounter("ou", static () => default(T))));
        Assert.Equal(new ListenedType(ListenedKind.ObservableGauge, isFloatingPoint), ListenedType.Of(meter.CreateObservableGauge("og", static () => default(T))));
    }

    // An instrument type of the application's own: the registry has no kind for it.
    private sealed class OwnInstrument(Meter meter) : Instrument<long>(meter, "own", null, null);
}
