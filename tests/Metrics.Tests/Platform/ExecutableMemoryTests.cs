using System.Globalization;
using ScalableMetrics.Platform;
using ScalableMetrics.Platform.Rseq;

namespace ScalableMetrics.Tests.Platform;

[Collection(ProcessWideStateCollection.Name)]
public class ExecutableMemoryTests
{
    [LinuxFact]
    public void AFailedCheckUnmapsTheMemory()
    {
        long before = ExecutableMemory.LiveMappings;
        nint checkedAt = 0;
        ExecutableMemory? memory = ExecutableMemory.TryCreate(
            _ => [0xC3],
            maxLength: 16,
            address =>
            {
                checkedAt = address;
                Assert.Equal(before + 1, ExecutableMemory.LiveMappings);
                Assert.Equal("r-xp", MappingPermissions(address));
                return "the self-test failed";
            },
            out string? failure);

        Assert.Null(memory);
        Assert.Equal("the self-test failed", failure);
        Assert.NotEqual(0, checkedAt);
        Assert.Equal(before, ExecutableMemory.LiveMappings);
        Assert.NotEqual("r-xp", MappingPermissions(checkedAt));
    }

    [LinuxFact]
    public void AThrowingEncoderOrOversizedCodeUnmapsTheMemory()
    {
        long before = ExecutableMemory.LiveMappings;
        Assert.Throws<InvalidOperationException>(() => ExecutableMemory.TryCreate(_ => throw new InvalidOperationException("encoder failed"), 16, _ => null, out _));
        Assert.Equal(before, ExecutableMemory.LiveMappings);

        Assert.Null(ExecutableMemory.TryCreate(_ => new byte[17], 16, _ => null, out string? failure));
        Assert.Contains("17 bytes", failure, StringComparison.Ordinal);
        Assert.Equal(before, ExecutableMemory.LiveMappings);
    }

    [LinuxFact]
    public void APassedCheckHandsOutReadExecuteMemoryThatDisposeUnmaps()
    {
        long before = ExecutableMemory.LiveMappings;
        ExecutableMemory? memory = ExecutableMemory.TryCreate(_ => [0xC3], 16, _ => null, out string? failure);
        Assert.NotNull(memory);
        Assert.Null(failure);
        Assert.Equal("r-xp", MappingPermissions(memory.Address));
        Assert.Equal(before + 1, ExecutableMemory.LiveMappings);
        memory.Dispose();
        memory.Dispose();
        Assert.Equal(before, ExecutableMemory.LiveMappings);
    }

    [RseqFact]
    public void NoMappingIsWritableAndExecutableOnceTheAddIsCreated()
    {
        nint entry = RestartableSequence.EntryAddress;
        Assert.NotEqual(0, entry);
        Assert.Equal("r-xp", MappingPermissions(entry));

        // The runtime's own code is W^X too (its default since .NET 7), unless turned off.
        if (Environment.GetEnvironmentVariable("DOTNET_EnableWriteXorExecute") != "0")
        {
            string[] writableAndExecutable = File.ReadAllLines("/proc/self/maps").Where(line => line.Split(' ')[1] is ['r' or '-', 'w', 'x', _]).ToArray();
            Assert.True(writableAndExecutable.Length == 0, string.Join('\n', writableAndExecutable));
        }
    }

    // The permissions (e.g. "r-xp") of the mapping that holds address, or null where none does.
    internal static string? MappingPermissions(nint address)
    {
        foreach (string line in File.ReadAllLines("/proc/self/maps"))
        {
            string[] fields = line.Split(' ', 3);
            string[] range = fields[0].Split('-');
            ulong start = ulong.Parse(range[0], NumberStyles.HexNumber, CultureInfo.InvariantCulture);
            ulong end = ulong.Parse(range[1], NumberStyles.HexNumber, CultureInfo.InvariantCulture);
            if ((ulong)address >= start && (ulong)address < end)
            {
                return fields[1];
            }
        }

        return null;
    }
}
