using Xunit.Sdk;

namespace ScalableMetrics.Tests;

/// <summary>
/// A theory whose rows start with a <see cref="Storages"/> name: a row whose write path this
/// process cannot carry out is reported as skipped, with the registry's reason
/// (<see cref="Storages.UnsupportedReason"/>), rather than run on the path the registry falls back to.
/// </summary>
[XunitTestCaseDiscoverer("ScalableMetrics.Tests.StorageTheoryDiscoverer", "ScalableMetrics.Tests")]
[AttributeUsage(AttributeTargets.Method)]
public class StorageTheoryAttribute : TheoryAttribute;
