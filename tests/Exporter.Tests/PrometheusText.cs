using System.Text;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// A strict reader of the text exposition format 0.0.4, enough to check what the exporter writes:
/// it throws on any line it does not understand, so malformed output fails the tests.
/// </summary>
public static class PrometheusText
{
    public static IReadOnlyList<PrometheusSample> Parse(string text)
    {
        var samples = new List<PrometheusSample>();
        if (text.Length == 0)
        {
            return samples;
        }

        Assert.EndsWith("\n", text);
        foreach (string line in text[..^1].Split('\n'))
        {
            if (line.StartsWith("# HELP ", StringComparison.Ordinal) || line.StartsWith("# TYPE ", StringComparison.Ordinal))
            {
                continue;
            }

            samples.Add(ParseSample(line));
        }

        return samples;
    }

    /// <summary>The one sample named <paramref name="name"/> whose labels include all of <paramref name="labels"/>.</summary>
    public static PrometheusSample Single(IReadOnlyList<PrometheusSample> samples, string name, params (string Name, string Value)[] labels) =>
        Assert.Single(samples, sample => sample.Name == name && labels.All(label => sample.Labels.TryGetValue(label.Name, out string? value) && value == label.Value));

    private static PrometheusSample ParseSample(string line)
    {
        int i = 0;
        while (i < line.Length && (char.IsAsciiLetterOrDigit(line[i]) || line[i] is '_' or ':'))
        {
            i++;
        }

        string name = line[..i];
        Assert.Matches("^[a-zA-Z_:][a-zA-Z0-9_:]*$", name);
        var labels = new Dictionary<string, string>(StringComparer.Ordinal);
        if (i < line.Length && line[i] == '{')
        {
            i++;
            while (line[i] != '}')
            {
                int nameStart = i;
                while (line[i] != '=')
                {
                    i++;
                }

                string labelName = line[nameStart..i];
                Assert.Matches("^[a-zA-Z_][a-zA-Z0-9_]*$", labelName);
                Assert.Equal('"', line[i + 1]);
                i += 2;
                var value = new StringBuilder();
                while (line[i] != '"')
                {
                    if (line[i] == '\\')
                    {
                        i++;
                        value.Append(line[i] switch
                        {
                            'n' => '\n',
                            '\\' => '\\',
                            '"' => '"',
                            _ => throw new FormatException($"Bad escape '\\{line[i]}' in: {line}"),
                        });
                    }
                    else
                    {
                        value.Append(line[i]);
                    }

                    i++;
                }

                Assert.True(labels.TryAdd(labelName, value.ToString()), $"Label {labelName} repeated in: {line}");
                i++;
                if (line[i] == ',')
                {
                    i++;
                }
            }

            i++;
        }

        Assert.Equal(' ', line[i]);
        string number = line[(i + 1)..];
        Assert.Matches(@"^([-+]?[0-9.]+([eE][-+]?[0-9]+)?|NaN|[+-]Inf)$", number);
        return new PrometheusSample(name, labels, number);
    }
}
