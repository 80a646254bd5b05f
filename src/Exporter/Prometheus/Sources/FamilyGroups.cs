namespace ScalableMetrics.Exporter.Prometheus.Sources;

/// <summary>
/// Members grouped by family name, in the order of each family's first member: what
/// <see cref="RegistrySource.WriteMerged"/> groups the listened meters' instruments into. Kept by
/// its source from scrape to scrape and cleared, not made again, so that a scrape of the same
/// instruments groups them without allocating.
/// </summary>
/// <typeparam name="TMember">What a member is.</typeparam>
/// <remarks>Not thread-safe: a scrape at a time, as its source.</remarks>
internal sealed class FamilyGroups<TMember>
{
    private readonly Dictionary<string, int> _indexByName = new(StringComparer.Ordinal);

    // Lists past Count are empty, kept for the families of later scrapes.
    private readonly List<List<TMember>> _families = [];

    /// <summary>How many families hold members.</summary>
    public int Count { get; private set; }

    /// <summary>The members of the family at <paramref name="index"/> (0 to <see cref="Count"/> − 1), in the order they were added.</summary>
    /// <param name="index">The family's position: the order of its first member.</param>
    public List<TMember> this[int index] => _families[index];

    /// <summary>Adds <paramref name="member"/> to the family named <paramref name="familyName"/>, after that family's members so far.</summary>
    /// <param name="familyName">The family's name.</param>
    /// <param name="member">The member.</param>
    public void Add(string familyName, TMember member)
    {
        if (!_indexByName.TryGetValue(familyName, out int index))
        {
            index = Count++;
            _indexByName.Add(familyName, index);
            if (index == _families.Count)
            {
                _families.Add([]);
            }
        }

        _families[index].Add(member);
    }

    /// <summary>Forgets every family and member, keeping the room they took.</summary>
    public void Clear()
    {
        for (int i = 0; i < Count; i++)
        {
            _families[i].Clear();
        }

        _indexByName.Clear();
        Count = 0;
    }
}
