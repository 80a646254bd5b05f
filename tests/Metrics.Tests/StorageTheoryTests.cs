using System.Reflection;

namespace ScalableMetrics.Tests;

public class StorageTheoryTests
{
    [Fact]
    public void EveryTheoryOverTheStoragesIsAStorageTheory()
    {
        // A plain [Theory] over Storages would run a row this process cannot carry out on the
        // write path the registry falls back to, under the name of the one it could not use.
        MethodInfo[] overStorages =
        [
            .. typeof(StorageTheoryTests).Assembly.GetTypes()
                .SelectMany(type => type.GetMethods(BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly))
                .Where(method => method.GetCustomAttributes<MemberDataAttribute>().Any(data => data.MemberType == typeof(Storages))),
        ];

        Assert.NotEmpty(overStorages);
        Assert.All(overStorages, method => Assert.True(method.GetCustomAttribute<StorageTheoryAttribute>() is not null, $"{method.DeclaringType!.Name}.{method.Name} takes Storages rows but is not a [StorageTheory]"));
    }
}
