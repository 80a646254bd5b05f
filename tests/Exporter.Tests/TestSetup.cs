using System.Runtime.CompilerServices;
using ScalableMetrics.Exporter.Prometheus.Exposition;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>Turns on, for every exposition written in the tests, the writer's check that no series repeats.</summary>
internal static class TestSetup
{
    [ModuleInitializer]
    internal static void CheckDuplicateSeries() => ExpositionWriter.ChecksDuplicatesByDefault = true;
}
