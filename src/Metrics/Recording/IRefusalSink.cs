namespace ScalableMetrics.Recording;

/// <summary>
/// What a <see cref="SeriesRecorder{TSeries}"/> tells of a measurement whose tags the registry
/// refuses, where its user drops the measurement rather than throw into the instrumented code.
/// </summary>
/// <remarks>Implemented by a struct and passed as a type argument, so that the recorder's miss
/// path is compiled for it and calls it directly: no interface dispatch, no delegate.</remarks>
internal interface IRefusalSink
{
    /// <summary>The registry refused the measurement's tags; nothing was recorded.</summary>
    /// <param name="exception">Why, as the registry instrument's own record would have thrown it.</param>
    void Refused(ArgumentException exception);
}
