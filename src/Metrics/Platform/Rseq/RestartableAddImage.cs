namespace ScalableMetrics.Platform.Rseq;

/// <summary>
/// What <see cref="RestartableAddEncoder"/> produces: the bytes to place at one address (the
/// <c>struct rseq_cs</c> descriptor, then the code) and where each part lies in them.
/// </summary>
/// <param name="Bytes">The image; valid only at the base address it was encoded for.</param>
/// <param name="EntryOffset">The function's entry point.</param>
/// <param name="StartOffset">The first instruction of the critical section (<c>start_ip</c>).</param>
/// <param name="PostCommitOffset">Just after the commit (<c>start_ip + post_commit_offset</c>).</param>
/// <param name="AbortOffset">The abort handler (<c>abort_ip</c>), 4 bytes after the signature.</param>
/// <param name="MapOffset">The map of ids to regions, after the code; 0 where the add has none.</param>
internal sealed record RestartableAddImage(byte[] Bytes, int EntryOffset, int StartOffset, int PostCommitOffset, int AbortOffset, int MapOffset = 0)
{
    /// <summary>The descriptor's 32 bytes.</summary>
    public ReadOnlySpan<byte> Descriptor => Bytes.AsSpan(RestartableAddEncoder.DescriptorOffset, RseqAbi.DescriptorSize);

    /// <summary>The code, from the entry point (the map, where there is one, left out).</summary>
    public ReadOnlySpan<byte> Code => MapOffset == 0 ? Bytes.AsSpan(EntryOffset) : Bytes.AsSpan(EntryOffset, MapOffset - EntryOffset);
}
