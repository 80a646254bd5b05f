using System.Buffers.Binary;

namespace ScalableMetrics.Platform.Rseq;

/// <summary>
/// Encodes the restartable add: the x86-64 bytes of one function and of its <c>struct rseq_cs</c>
/// descriptor, for the memory they will be placed at. Pure: no native call, no global state, so
/// that its output can be checked byte for byte.
/// </summary>
/// <remarks>
/// <para>The function is <c>bool add(long* slotInRegion0 /*rdi*/, nint regionStride /*rsi*/,
/// long value /*rdx*/)</c> (System V): it adds <c>value</c> to the <see langword="long"/> at
/// <c>slotInRegion0 + id × regionStride</c> bytes, where <c>id</c> is the thread's
/// <c>cpu_id</c> or <c>mm_cid</c>, saturating at <see cref="long.MaxValue"/> (the caller gives
/// <c>value ≥ 0</c>), and returns 1; or returns 0 with nothing added where <c>id</c> is not below
/// the partition count (unsigned, so the unregistered <c>cpu_id</c> of -1 is caught too). Design
/// after librseq's <c>rseq_addv</c> (Desnoyers): the final store is the commit; if the kernel
/// preempts, migrates or signals the thread between <c>start</c> and the commit, it sends the
/// thread to <c>abort</c>, which counts the restart and starts over.</para>
/// <para>The image is the descriptor at offset <see cref="DescriptorOffset"/> (32 bytes, 32-byte
/// aligned, as the kernel requires) and the code at <see cref="CodeOffset"/>, the entry point.
/// For rseq offset 0x9a0, <see cref="RseqIdField.CpuId"/>, 2 partitions, the restart counter at
/// 0x7f0000000100 and the image at 0x7f0000001000, the code is (<c>objdump -D -b binary
/// -m i386:x86-64 -M intel</c>; offsets from the entry; the test <c>RestartableAddEncoderTests</c>
/// disassembles the encoder's output and compares it with this listing, line by line):</para>
/// <code>
///  0: 49 b8 ff ff ff ff ff ff ff 7f  movabs r8,0x7fffffffffffffff   ; entry: long.MaxValue, for the saturating cmovo
///  a: 48 8d 05 cf ff ff ff           lea rax,[rip+0xffffffffffffffcf] ; the descriptor's address
/// 11: 64 48 89 04 25 a8 09 00 00     mov QWORD PTR fs:0x9a8,rax      ; rseq->rseq_cs = descriptor: armed
/// 1a: 64 8b 04 25 a4 09 00 00        mov eax,DWORD PTR fs:0x9a4      ; start: id = rseq->cpu_id (fs:0x9b8 for mm_cid)
/// 22: 3d 02 00 00 00                 cmp eax,0x2                     ; id &lt; partition count?
/// 27: 73 19                          jae 0x42                        ; no (unsigned: -1 too): out of range
/// 29: 48 0f af c6                    imul rax,rsi                    ; id × regionStride
/// 2d: 48 8b 0c 38                    mov rcx,QWORD PTR [rax+rdi*1]   ; the slot in region id
/// 31: 48 01 d1                       add rcx,rdx                     ; + value
/// 34: 49 0f 40 c8                    cmovo rcx,r8                    ; saturate at long.MaxValue
/// 38: 48 89 0c 38                    mov QWORD PTR [rax+rdi*1],rcx   ; the commit
/// 3c: b8 01 00 00 00                 mov eax,0x1                     ; post-commit: added
/// 41: c3                             ret
/// 42: 31 c0                          xor eax,eax                     ; out of range: not added
/// 44: c3                             ret
/// 45: 0f b9 3d 53 30 05 53           ud1 edi,DWORD PTR [rip+0x53053053] ; RSEQ_SIG before the abort address
/// 4c: 48 b8 00 01 00 00 00 7f 00 00  movabs rax,0x7f0000000100      ; abort: the restart counter
/// 56: f0 48 ff 00                    lock inc QWORD PTR [rax]        ; one more restart
/// 5a: e9 a1 ff ff ff                 jmp 0x0                         ; the kernel cleared rseq_cs: arm it again
/// </code>
/// <para>The descriptor holds <c>version 0, flags 0, start_ip = entry + 0x1a,
/// post_commit_offset = 0x22, abort_ip = entry + 0x4c</c>. The id is read once and kept in a
/// register; the registers written (rax, rcx, r8) are caller-saved.</para>
/// <para>With a map (<see cref="RseqPartitionBounds"/>: <c>cpu_id</c> where the allowed processors
/// are not 0 to k - 1 and the kernel has no <c>mm_cid</c>), the id is looked up inside the sequence
/// in a table of 16-bit regions placed after the code, in the same read-only mapping; its listing
/// is on <see cref="EncodeMapped"/>.</para>
/// <para>The wrapping and the double add (<see cref="RestartableOperation"/>, where their listings
/// are) are the same code around another body, without the <c>movabs r8</c>. Each operation is
/// its own image, rather than one image of three functions: the saturating add's bytes stay
/// what they were, and one function's failed creation or self-test leaves the others.</para>
/// </remarks>
internal static class RestartableAddEncoder
{
    /// <summary>Where the descriptor lies in the image.</summary>
    public const int DescriptorOffset = 0;

    /// <summary>Where the code, and its entry point, lie in the image.</summary>
    public const int CodeOffset = RseqAbi.DescriptorSize;

    /// <summary>The alignment the image's base address needs (the descriptor's).</summary>
    public const int BaseAlignment = RseqAbi.DescriptorSize;

    /// <summary>Encodes the function and its descriptor.</summary>
    /// <param name="rseqOffset">The thread's <c>struct rseq</c> area, as an offset from the thread pointer (<c>__rseq_offset</c>).</param>
    /// <param name="idField">Which id picks the region.</param>
    /// <param name="partitionCount">The number of regions: ids at or above it are not added (the function returns 0).</param>
    /// <param name="restartCounterAddress">The address of the <see langword="long"/> the abort path increments atomically.</param>
    /// <param name="baseAddress">Where the image will be placed; a multiple of <see cref="BaseAlignment"/>.</param>
    /// <returns>The image (descriptor and code) and the offsets in it.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="partitionCount"/> is not positive, or <paramref name="rseqOffset"/> puts a field out of a 32-bit displacement's reach.</exception>
    /// <exception cref="ArgumentException"><paramref name="baseAddress"/> is not aligned.</exception>
    public static RestartableAddImage Encode(long rseqOffset, RseqIdField idField, int partitionCount, ulong restartCounterAddress, ulong baseAddress) =>
        Encode(rseqOffset, idField, partitionCount, restartCounterAddress, baseAddress, RestartableOperation.SaturatingAdd);

    /// <summary>Encodes the function of <paramref name="operation"/> and its descriptor (the listings are on <see cref="RestartableOperation"/>'s members).</summary>
    /// <param name="rseqOffset">The thread's <c>struct rseq</c> area, as an offset from the thread pointer (<c>__rseq_offset</c>).</param>
    /// <param name="idField">Which id picks the region.</param>
    /// <param name="partitionCount">The number of regions: ids at or above it are not added (the function returns 0).</param>
    /// <param name="restartCounterAddress">The address of the <see langword="long"/> the abort path increments atomically.</param>
    /// <param name="baseAddress">Where the image will be placed; a multiple of <see cref="BaseAlignment"/>.</param>
    /// <param name="operation">What the critical section does to the slot.</param>
    /// <returns>The image (descriptor and code) and the offsets in it.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="partitionCount"/> is not positive, <paramref name="rseqOffset"/> puts a field out of a 32-bit displacement's reach, or <paramref name="operation"/> is not defined.</exception>
    /// <exception cref="ArgumentException"><paramref name="baseAddress"/> is not aligned.</exception>
    public static RestartableAddImage Encode(long rseqOffset, RseqIdField idField, int partitionCount, ulong restartCounterAddress, ulong baseAddress, RestartableOperation operation) =>
        Encode(rseqOffset, idField, partitionCount, restartCounterAddress, baseAddress, operation, regionOfId: default);

    /// <summary>
    /// Encodes the function of <paramref name="operation"/> that looks its region up in
    /// <paramref name="regionOfId"/> inside the sequence, and its descriptor.
    /// </summary>
    /// <remarks>
    /// For the inputs of the listing in the type's remarks and the map <c>{ 0xffff, 1, 0 }</c>
    /// (processors 1 and 2 allowed, in the order 2, 1), the saturating add is (offsets from the
    /// entry; the map follows the code, 2-byte aligned):
    /// <code>
    ///  0: 49 b8 ff ff ff ff ff ff ff 7f  movabs r8,0x7fffffffffffffff   ; entry: long.MaxValue, for the saturating cmovo
    ///  a: 48 8d 05 cf ff ff ff           lea rax,[rip+0xffffffffffffffcf] ; the descriptor's address
    /// 11: 64 48 89 04 25 a8 09 00 00     mov QWORD PTR fs:0x9a8,rax      ; rseq->rseq_cs = descriptor: armed
    /// 1a: 48 8d 0d 51 00 00 00           lea rcx,[rip+0x51]              ; the map's address (entry + 0x72)
    /// 21: 64 8b 04 25 a4 09 00 00        mov eax,DWORD PTR fs:0x9a4      ; start: id = rseq->cpu_id
    /// 29: 3d 03 00 00 00                 cmp eax,0x3                     ; id in the map?
    /// 2e: 73 24                          jae 0x54                        ; no (unsigned: -1 too): out of range
    /// 30: 0f b7 04 41                    movzx eax,WORD PTR [rcx+rax*2]  ; region = map[id]
    /// 34: 3d 02 00 00 00                 cmp eax,0x2                     ; a region (0xffff: none)?
    /// 39: 73 19                          jae 0x54                        ; no: out of range
    /// 3b: 48 0f af c6                    imul rax,rsi                    ; region × regionStride
    /// 3f: 48 8b 0c 38                    mov rcx,QWORD PTR [rax+rdi*1]   ; the slot in the region
    /// 43: 48 01 d1                       add rcx,rdx                     ; + value
    /// 46: 49 0f 40 c8                    cmovo rcx,r8                    ; saturate at long.MaxValue
    /// 4a: 48 89 0c 38                    mov QWORD PTR [rax+rdi*1],rcx   ; the commit
    /// 4e: b8 01 00 00 00                 mov eax,0x1                     ; post-commit: added
    /// 53: c3                             ret
    /// 54: 31 c0                          xor eax,eax                     ; out of range: not added
    /// 56: c3                             ret
    /// 57: 0f b9 3d 53 30 05 53           ud1 edi,DWORD PTR [rip+0x53053053] ; RSEQ_SIG before the abort address
    /// 5e: 48 b8 00 01 00 00 00 7f 00 00  movabs rax,0x7f0000000100      ; abort: the restart counter
    /// 68: f0 48 ff 00                    lock inc QWORD PTR [rax]        ; one more restart
    /// 6c: e9 8f ff ff ff                 jmp 0x0                         ; arm it again
    /// 71: cc                             int3                            ; padding, never run: the map is 2-byte aligned
    /// </code>
    /// Two more compares and a load from a line every add of the process reads (so it stays
    /// cached): the price of regions for the allowed processors only, where no dense id is at hand.
    /// </remarks>
    /// <param name="rseqOffset">The thread's <c>struct rseq</c> area, as an offset from the thread pointer (<c>__rseq_offset</c>).</param>
    /// <param name="idField">Which id is looked up.</param>
    /// <param name="partitionCount">The number of regions: a map entry at or above it (<see cref="RseqPartitionBounds.NoRegion"/>) is no region.</param>
    /// <param name="restartCounterAddress">The address of the <see langword="long"/> the abort path increments atomically.</param>
    /// <param name="baseAddress">Where the image will be placed; a multiple of <see cref="BaseAlignment"/>.</param>
    /// <param name="operation">What the critical section does to the slot.</param>
    /// <param name="regionOfId">The region of each id, 1 to 8,192 entries; no region below <paramref name="partitionCount"/> may appear twice (a plain add has one writer).</param>
    /// <returns>The image (descriptor, code, then the map) and the offsets in it.</returns>
    /// <exception cref="ArgumentOutOfRangeException">As <see cref="Encode(long, RseqIdField, int, ulong, ulong, RestartableOperation)"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="baseAddress"/> is not aligned, or <paramref name="regionOfId"/> is empty, longer than 8,192 entries, or gives one region to two ids.</exception>
    public static RestartableAddImage EncodeMapped(long rseqOffset, RseqIdField idField, int partitionCount, ulong restartCounterAddress, ulong baseAddress, RestartableOperation operation, ReadOnlySpan<ushort> regionOfId)
    {
        if (regionOfId.IsEmpty || regionOfId.Length > ProcessorSet.MaxProcessors)
        {
            throw new ArgumentException($"The map has {regionOfId.Length} entries; it needs 1 to {ProcessorSet.MaxProcessors}.", nameof(regionOfId));
        }

        var taken = new HashSet<ushort>();
        foreach (ushort region in regionOfId)
        {
            if (region < partitionCount && !taken.Add(region))
            {
                throw new ArgumentException($"The map gives region {region} to two ids: a region takes plain adds from one processor only.", nameof(regionOfId));
            }
        }

        return Encode(rseqOffset, idField, partitionCount, restartCounterAddress, baseAddress, operation, regionOfId);
    }

    private static RestartableAddImage Encode(long rseqOffset, RseqIdField idField, int partitionCount, ulong restartCounterAddress, ulong baseAddress, RestartableOperation operation, ReadOnlySpan<ushort> regionOfId)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(partitionCount, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(rseqOffset, int.MinValue);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(rseqOffset, int.MaxValue - RseqAbi.MmCidOffset);
        if (baseAddress % BaseAlignment != 0)
        {
            throw new ArgumentException($"The image's base address 0x{baseAddress:x} is not a multiple of {BaseAlignment}.", nameof(baseAddress));
        }

        ReadOnlySpan<byte> body = operation switch
        {
            // imul rax, rsi; mov rcx, [rax + rdi]; add rcx, rdx; cmovo rcx, r8; mov [rax + rdi], rcx (the commit)
            RestartableOperation.SaturatingAdd => [0x48, 0x0F, 0xAF, 0xC6, 0x48, 0x8B, 0x0C, 0x38, 0x48, 0x01, 0xD1, 0x49, 0x0F, 0x40, 0xC8, 0x48, 0x89, 0x0C, 0x38],

            // imul rax, rsi; mov rcx, [rax + rdi]; add rcx, rdx; mov [rax + rdi], rcx (the commit)
            RestartableOperation.WrappingAdd => [0x48, 0x0F, 0xAF, 0xC6, 0x48, 0x8B, 0x0C, 0x38, 0x48, 0x01, 0xD1, 0x48, 0x89, 0x0C, 0x38],

            // imul rax, rsi; movsd xmm1, [rax + rdi]; addsd xmm1, xmm0; movsd [rax + rdi], xmm1 (the commit)
            RestartableOperation.DoubleAdd => [0x48, 0x0F, 0xAF, 0xC6, 0xF2, 0x0F, 0x10, 0x0C, 0x38, 0xF2, 0x0F, 0x58, 0xC8, 0xF2, 0x0F, 0x11, 0x0C, 0x38],
            _ => throw new ArgumentOutOfRangeException(nameof(operation), operation, "Not a restartable operation."),
        };

        int idOffset = idField == RseqIdField.MmCid ? RseqAbi.MmCidOffset : RseqAbi.CpuIdOffset;
        bool mapped = !regionOfId.IsEmpty;
        byte[] image = new byte[CodeOffset + 128 + (regionOfId.Length * sizeof(ushort))];
        Span<byte> code = image.AsSpan(CodeOffset);
        int at = 0;

        if (operation == RestartableOperation.SaturatingAdd)
        {
            // entry: movabs r8, long.MaxValue, for the cmovo
            Emit(code, ref at, [0x49, 0xB8]);
            EmitInt64(code, ref at, long.MaxValue);
        }

        // lea rax, [rip + rel32]: the descriptor
        Emit(code, ref at, [0x48, 0x8D, 0x05]);
        EmitInt32(code, ref at, DescriptorOffset - (CodeOffset + at + 4));

        // mov qword ptr fs:[rseq_cs], rax
        Emit(code, ref at, [0x64, 0x48, 0x89, 0x04, 0x25]);
        EmitInt32(code, ref at, (int)rseqOffset + RseqAbi.RseqCsOffset);

        // lea rcx, [rip + rel32]: the map (patched below), before the section, which rcx is free in until the body.
        int mapLea = at;
        if (mapped)
        {
            Emit(code, ref at, [0x48, 0x8D, 0x0D, 0, 0, 0, 0]);
        }

        int start = at;

        // mov eax, dword ptr fs:[id]
        Emit(code, ref at, [0x64, 0x8B, 0x04, 0x25]);
        EmitInt32(code, ref at, (int)rseqOffset + idOffset);

        int mapJaeEnd = 0;
        if (mapped)
        {
            // cmp eax, map length; jae rel8 (patched below); movzx eax, word ptr [rcx + rax*2]
            Emit(code, ref at, [0x3D]);
            EmitInt32(code, ref at, regionOfId.Length);
            Emit(code, ref at, [0x73, 0x00]);
            mapJaeEnd = at;
            Emit(code, ref at, [0x0F, 0xB7, 0x04, 0x41]);
        }

        // cmp eax, imm32; jae rel8 (patched below)
        Emit(code, ref at, [0x3D]);
        EmitInt32(code, ref at, partitionCount);
        Emit(code, ref at, [0x73, 0x00]);
        int jaeEnd = at;

        // The body: the slot in region id, and the operation, whose last instruction, a store, is the commit.
        Emit(code, ref at, body);
        int postCommit = at;

        // mov eax, 1; ret
        Emit(code, ref at, [0xB8, 0x01, 0x00, 0x00, 0x00, 0xC3]);
        code[jaeEnd - 1] = checked((byte)(at - jaeEnd));
        if (mapped)
        {
            code[mapJaeEnd - 1] = checked((byte)(at - mapJaeEnd));
        }

        // outOfRange: xor eax, eax; ret
        Emit(code, ref at, [0x31, 0xC0, 0xC3]);

        // ud1 edi, [rip + RSEQ_SIG]: the 4 bytes before the abort address are the signature.
        Emit(code, ref at, [0x0F, 0xB9, 0x3D]);
        EmitInt32(code, ref at, unchecked((int)RseqAbi.Signature));
        int abort = at;

        // movabs rax, &restarts; lock inc qword ptr [rax]; jmp entry
        Emit(code, ref at, [0x48, 0xB8]);
        EmitInt64(code, ref at, unchecked((long)restartCounterAddress));
        Emit(code, ref at, [0xF0, 0x48, 0xFF, 0x00, 0xE9]);
        EmitInt32(code, ref at, -(at + 4));

        // The map, 2-byte aligned, after the code: read-only once the mapping is made executable.
        int mapAt = 0;
        if (mapped)
        {
            if (at % sizeof(ushort) != 0)
            {
                Emit(code, ref at, [0xCC]); // int3: padding never run
            }

            mapAt = at;
            foreach (ushort region in regionOfId)
            {
                BinaryPrimitives.WriteUInt16LittleEndian(code[at..], region);
                at += sizeof(ushort);
            }

            BinaryPrimitives.WriteInt32LittleEndian(code[(mapLea + 3)..], mapAt - (mapLea + 7));
        }

        ulong entryAddress = baseAddress + CodeOffset;
        Span<byte> descriptor = image.AsSpan(DescriptorOffset, RseqAbi.DescriptorSize);
        BinaryPrimitives.WriteUInt32LittleEndian(descriptor[RseqAbi.DescriptorVersionOffset..], 0);
        BinaryPrimitives.WriteUInt32LittleEndian(descriptor[RseqAbi.DescriptorFlagsOffset..], 0);
        BinaryPrimitives.WriteUInt64LittleEndian(descriptor[RseqAbi.DescriptorStartIpOffset..], entryAddress + (ulong)start);
        BinaryPrimitives.WriteUInt64LittleEndian(descriptor[RseqAbi.DescriptorPostCommitOffsetOffset..], (ulong)(postCommit - start));
        BinaryPrimitives.WriteUInt64LittleEndian(descriptor[RseqAbi.DescriptorAbortIpOffset..], entryAddress + (ulong)abort);
        return new RestartableAddImage(image.AsSpan(0, CodeOffset + at).ToArray(), CodeOffset, CodeOffset + start, CodeOffset + postCommit, CodeOffset + abort, mapped ? CodeOffset + mapAt : 0);
    }

    private static void Emit(Span<byte> code, ref int at, ReadOnlySpan<byte> bytes)
    {
        bytes.CopyTo(code[at..]);
        at += bytes.Length;
    }

    private static void EmitInt32(Span<byte> code, ref int at, int value)
    {
        BinaryPrimitives.WriteInt32LittleEndian(code[at..], value);
        at += sizeof(int);
    }

    private static void EmitInt64(Span<byte> code, ref int at, long value)
    {
        BinaryPrimitives.WriteInt64LittleEndian(code[at..], value);
        at += sizeof(long);
    }
}
