namespace ScalableMetrics.Scaling;

/// <summary>
/// One add of 1 to an implementation's counter, as a struct so that <see cref="HotLoop.Run"/>
/// is specialized for each implementation and the add is inlined into the loop.
/// </summary>
internal interface IAdder
{
    /// <summary>Adds 1 on behalf of the calling thread.</summary>
    void Add();
}
