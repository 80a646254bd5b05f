namespace ScalableMetrics.Platform.Rseq;

/// <summary>
/// What a restartable function does to the slot in the calling thread's region: the only part of
/// <see cref="RestartableAddEncoder"/>'s code that differs between them, the load, the operation
/// and the committing store. Each operation is its own function with its own descriptor and
/// mapping, so that one whose creation or self-test fails leaves the others in use.
/// </summary>
/// <remarks>
/// The listings are for the inputs of the one in <see cref="RestartableAddEncoder"/>'s remarks
/// (rseq offset 0x9a0, <see cref="RseqIdField.CpuId"/>, 2 partitions, the restart counter at
/// 0x7f0000000100, the image at 0x7f0000001000); offsets from the entry. The test
/// <c>RestartableOperationListingTests</c> disassembles the encoder's output with objdump and
/// compares it with each listing, line by line.
/// </remarks>
internal enum RestartableOperation
{
    /// <summary>
    /// <c>bool add(long* slotInRegion0 /*rdi*/, nint regionStride /*rsi*/, long value /*rdx*/)</c>,
    /// <c>value ≥ 0</c>, saturating at <see cref="long.MaxValue"/> (counters, bucket counts); its
    /// listing is in <see cref="RestartableAddEncoder"/>'s remarks.
    /// </summary>
    SaturatingAdd,

    /// <summary>
    /// <c>bool addWrapping(long* slotInRegion0 /*rdi*/, nint regionStride /*rsi*/, long value /*rdx*/)</c>,
    /// any sign, wrapping in two's complement (<c>SlotSum.Wrapping</c>: up-down counters): the
    /// saturating add without the <c>cmovo</c> and the <c>movabs r8</c> it needs. Writes rax and rcx.
    /// <code>
    ///  0: 48 8d 05 d9 ff ff ff           lea rax,[rip+0xffffffffffffffd9] ; entry: the descriptor's address
    ///  7: 64 48 89 04 25 a8 09 00 00     mov QWORD PTR fs:0x9a8,rax      ; rseq->rseq_cs = descriptor: armed
    /// 10: 64 8b 04 25 a4 09 00 00        mov eax,DWORD PTR fs:0x9a4      ; start: id = rseq->cpu_id
    /// 18: 3d 02 00 00 00                 cmp eax,0x2                     ; id &lt; partition count?
    /// 1d: 73 15                          jae 0x34                        ; no: out of range
    /// 1f: 48 0f af c6                    imul rax,rsi                    ; id × regionStride
    /// 23: 48 8b 0c 38                    mov rcx,QWORD PTR [rax+rdi*1]   ; the slot in region id
    /// 27: 48 01 d1                       add rcx,rdx                     ; + value, wrapping
    /// 2a: 48 89 0c 38                    mov QWORD PTR [rax+rdi*1],rcx   ; the commit
    /// 2e: b8 01 00 00 00                 mov eax,0x1                     ; post-commit: added
    /// 33: c3                             ret
    /// 34: 31 c0                          xor eax,eax                     ; out of range: not added
    /// 36: c3                             ret
    /// 37: 0f b9 3d 53 30 05 53           ud1 edi,DWORD PTR [rip+0x53053053] ; RSEQ_SIG before the abort address
    /// 3e: 48 b8 00 01 00 00 00 7f 00 00  movabs rax,0x7f0000000100      ; abort: the restart counter
    /// 48: f0 48 ff 00                    lock inc QWORD PTR [rax]        ; one more restart
    /// 4c: e9 af ff ff ff                 jmp 0x0                         ; arm it again
    /// </code>
    /// The descriptor holds <c>start_ip = entry + 0x10, post_commit_offset = 0x1e, abort_ip = entry + 0x3e</c>.
    /// </summary>
    WrappingAdd,

    /// <summary>
    /// <c>bool addDouble(long* slotInRegion0 /*rdi*/, nint regionStride /*rsi*/, double value /*xmm0*/)</c>
    /// (System V passes the double in xmm0): the slot holds a <see cref="double"/>'s bits
    /// (<c>SlotSum.Double</c>); a load, an <c>addsd</c> and a committing store, an aligned 8-byte
    /// <c>movsd</c>, so that a read never sees half of one. Writes rax and xmm1 (caller-saved);
    /// xmm0 is only read, so a restart adds the same value.
    /// <code>
    ///  0: 48 8d 05 d9 ff ff ff           lea rax,[rip+0xffffffffffffffd9] ; entry: the descriptor's address
    ///  7: 64 48 89 04 25 a8 09 00 00     mov QWORD PTR fs:0x9a8,rax      ; rseq->rseq_cs = descriptor: armed
    /// 10: 64 8b 04 25 a4 09 00 00        mov eax,DWORD PTR fs:0x9a4      ; start: id = rseq->cpu_id
    /// 18: 3d 02 00 00 00                 cmp eax,0x2                     ; id &lt; partition count?
    /// 1d: 73 18                          jae 0x37                        ; no: out of range
    /// 1f: 48 0f af c6                    imul rax,rsi                    ; id × regionStride
    /// 23: f2 0f 10 0c 38                 movsd xmm1,QWORD PTR [rax+rdi*1] ; the slot in region id
    /// 28: f2 0f 58 c8                    addsd xmm1,xmm0                 ; + value
    /// 2c: f2 0f 11 0c 38                 movsd QWORD PTR [rax+rdi*1],xmm1 ; the commit
    /// 31: b8 01 00 00 00                 mov eax,0x1                     ; post-commit: added
    /// 36: c3                             ret
    /// 37: 31 c0                          xor eax,eax                     ; out of range: not added
    /// 39: c3                             ret
    /// 3a: 0f b9 3d 53 30 05 53           ud1 edi,DWORD PTR [rip+0x53053053] ; RSEQ_SIG before the abort address
    /// 41: 48 b8 00 01 00 00 00 7f 00 00  movabs rax,0x7f0000000100      ; abort: the restart counter
    /// 4b: f0 48 ff 00                    lock inc QWORD PTR [rax]        ; one more restart
    /// 4f: e9 ac ff ff ff                 jmp 0x0                         ; arm it again
    /// </code>
    /// The descriptor holds <c>start_ip = entry + 0x10, post_commit_offset = 0x21, abort_ip = entry + 0x41</c>.
    /// </summary>
    DoubleAdd,
}
