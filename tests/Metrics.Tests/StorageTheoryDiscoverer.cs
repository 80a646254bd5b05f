using Xunit.Abstractions;
using Xunit.Sdk;

namespace ScalableMetrics.Tests;

/// <summary>
/// Finds the test cases of a <see cref="StorageTheoryAttribute"/>: the theory discoverer's, with a
/// row of an unsupported storage made a skipped row. xunit 2 has no skip from inside a test, so
/// the decision is taken here, at discovery (which `dotnet test` runs in the test host itself).
/// </summary>
public sealed class StorageTheoryDiscoverer(IMessageSink diagnosticMessageSink) : TheoryDiscoverer(diagnosticMessageSink)
{
    protected override IEnumerable<IXunitTestCase> CreateTestCasesForDataRow(ITestFrameworkDiscoveryOptions discoveryOptions, ITestMethod testMethod, IAttributeInfo theoryAttribute, object[] dataRow)
    {
        string? reason = dataRow is [string storage, ..] ? Storages.UnsupportedReason(storage) : null;
        return reason is null
            ? base.CreateTestCasesForDataRow(discoveryOptions, testMethod, theoryAttribute, dataRow)
            : CreateTestCasesForSkippedDataRow(discoveryOptions, testMethod, theoryAttribute, dataRow, reason);
    }

    // Where the rows are not enumerated at discovery (pre-enumeration turned off, or data that
    // cannot be serialized), the theory would run every row, unsupported ones included, on the
    // fallback path: an error that says so instead.
    protected override IEnumerable<IXunitTestCase> CreateTestCasesForTheory(ITestFrameworkDiscoveryOptions discoveryOptions, ITestMethod testMethod, IAttributeInfo theoryAttribute) =>
    [
        new ExecutionErrorTestCase(
            DiagnosticMessageSink,
            discoveryOptions.MethodDisplayOrDefault(),
            discoveryOptions.MethodDisplayOptionsOrDefault(),
            testMethod,
            $"{testMethod.TestClass.Class.Name}.{testMethod.Method.Name} is a StorageTheory: its rows must be enumerated at discovery (serializable data, preEnumerateTheories on), so that a storage this process cannot carry out is skipped rather than run on another write path."),
    ];
}
