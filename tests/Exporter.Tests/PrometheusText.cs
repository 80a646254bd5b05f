using System.Globalization;
using System.Text;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// A strict reader of the text exposition format 0.0.4, used on every scrape the tests take: it
/// fails on any line it does not understand, on a family's <c># HELP</c> or <c># TYPE</c> line
/// given twice or after its samples, on a sample outside the family its lines belong to, on two
/// samples Prometheus would store as one series (same name, same labels once sorted and with
/// empty values dropped: it keeps the first and drops the rest), and on a negative counter,
/// summary or histogram count or sum. With <c>utf8Names</c>, it reads text 1.0.0 (and OpenMetrics)
/// as a scrape that allows UTF-8 names gets it, by the grammar of Prometheus' escaping-schemes
/// document and text format 1.0.0: a name outside the legacy character set between double quotes
/// (<c>\\</c>, <c>\"</c>, <c>\n</c> escaped), a metric name quoted as the first item in the braces
/// (<c>{"http.server.request.duration",le="0.1"} 3</c>), in <c># HELP</c> and <c># TYPE</c> lines
/// quoted in place; and it fails on a name quoted that needs no quotes.
/// </summary>
public static class PrometheusText
{
    public static IReadOnlyList<PrometheusSample> Parse(string text, bool utf8Names = false)
    {
        var samples = new List<PrometheusSample>();
        if (text.Length == 0)
        {
            return samples;
        }

        Assert.EndsWith("\n", text);
        var helped = new HashSet<string>(StringComparer.Ordinal);
        var typed = new Dictionary<string, string>(StringComparer.Ordinal);
        var sampled = new HashSet<string>(StringComparer.Ordinal);
        var series = new HashSet<string>(StringComparer.Ordinal);
        string? family = null;
        foreach (string line in text[..^1].Split('\n'))
        {
            if (line.StartsWith("# HELP ", StringComparison.Ordinal) || line.StartsWith("# TYPE ", StringComparison.Ordinal))
            {
                int afterName = 7;
                string name = ReadName(line, ref afterName, utf8Names, label: false);
                Assert.True(afterName == line.Length || line[afterName] == ' ', $"No space after the name: {line}");
                string[] parts = [.. line[..7].Split(' ', StringSplitOptions.RemoveEmptyEntries), name, .. afterName < line.Length ? [line[(afterName + 1)..]] : Array.Empty<string>()];
                Assert.False(sampled.Contains(name), $"{parts[1]} for {name} after its samples: {line}");
                if (parts[1] == "HELP")
                {
                    Assert.True(helped.Add(name), $"HELP given twice for {name}");
                    Assert.False(typed.ContainsKey(name), $"HELP after TYPE for {name}");
                }
                else
                {
                    Assert.Equal(4, parts.Length);
                    Assert.Contains(parts[3], new[] { "counter", "gauge", "summary", "histogram", "untyped" });
                    Assert.True(typed.TryAdd(name, parts[3]), $"TYPE given twice for {name}");
                }

                family = name;
                continue;
            }

            Assert.False(line.StartsWith('#'), $"Unknown comment line: {line}");
            PrometheusSample sample = ParseSample(line, openMetrics: false, utf8Names);
            string type = family is null ? "untyped" : typed.GetValueOrDefault(family, "untyped");
            string owner = family is not null && BelongsTo(sample.Name, family, type) ? family : sample.Name;
            Assert.True(owner == family || !typed.ContainsKey(sample.Name), $"Sample outside its family's lines: {line}");
            sampled.Add(owner);
            family = owner;

            string key = SeriesKey(sample.Name, sample.Labels);
            Assert.True(series.Add(key), $"Two samples of one series as Prometheus stores it: {key}");
            bool mustNotBeNegative = type == "counter" || (type is "summary" or "histogram" && sample.Name != family);
            if (mustNotBeNegative)
            {
                Assert.False(sample.NumericValue < 0, $"Negative {type} value: {line}");
            }

            samples.Add(sample);
        }

        return samples;
    }

    /// <summary>
    /// The samples of OpenMetrics text, less strictly than <see cref="Parse"/> reads text 0.0.4:
    /// each sample line's name, labels and value (its timestamp and exemplar skipped); the
    /// metadata lines are not checked, and the text must end with <c># EOF</c>.
    /// </summary>
    public static IReadOnlyList<PrometheusSample> ParseOpenMetrics(string text, bool utf8Names = false)
    {
        Assert.EndsWith("# EOF\n", text);
        return [.. text[..^"# EOF\n".Length].Split('\n').Where(static line => line.Length > 0 && !line.StartsWith('#')).Select(line => ParseSample(line, openMetrics: true, utf8Names))];
    }

    /// <summary>The names of the <c># TYPE</c> lines of OpenMetrics or text, quoted ones read back, in order.</summary>
    public static IReadOnlyList<string> TypedFamilies(string text, bool utf8Names = false) =>
        [.. text.Split('\n').Where(static line => line.StartsWith("# TYPE ", StringComparison.Ordinal)).Select(line =>
        {
            int at = 7;
            return ReadName(line, ref at, utf8Names, label: false);
        })];

    /// <summary>A series as Prometheus stores it: the sample name and its labels sorted, those of empty value left out.</summary>
    public static string SeriesKey(string name, IEnumerable<KeyValuePair<string, string>> labels) =>
        name + "{" + string.Join(",", labels.Where(l => l.Value.Length > 0).OrderBy(l => l.Key, StringComparer.Ordinal).Select(l => l.Key + "=" + l.Value)) + "}";

    /// <summary>The one sample named <paramref name="name"/> whose labels include all of <paramref name="labels"/>.</summary>
    public static PrometheusSample Single(IReadOnlyList<PrometheusSample> samples, string name, params (string Name, string Value)[] labels) =>
        Assert.Single(samples, sample => sample.Name == name && labels.All(label => sample.Labels.TryGetValue(label.Name, out string? value) && value == label.Value));

    /// <summary>The sample named <paramref name="name"/> whose labels are exactly <paramref name="labels"/> (empty values left out).</summary>
    public static PrometheusSample Exact(IReadOnlyList<PrometheusSample> samples, string name, IReadOnlyDictionary<string, string> labels) =>
        Assert.Single(samples, sample => sample.Name == name
            && sample.Labels.Count(l => l.Value.Length > 0) == labels.Count(l => l.Value.Length > 0)
            && labels.Where(l => l.Value.Length > 0).All(l => sample.Labels.TryGetValue(l.Key, out string? value) && value == l.Value));

    private static bool BelongsTo(string sample, string family, string type) => type switch
    {
        "summary" => sample == family || sample == family + "_sum" || sample == family + "_count",
        "histogram" => sample == family + "_bucket" || sample == family + "_sum" || sample == family + "_count",
        _ => sample == family,
    };

    private static PrometheusSample ParseSample(string line, bool openMetrics = false, bool utf8Names = false)
    {
        int i = 0;
        string? name = null;
        if (!(utf8Names && line.StartsWith("{\"", StringComparison.Ordinal)))
        {
            name = ReadName(line, ref i, utf8Names: false, label: false);
        }

        var labels = new Dictionary<string, string>(StringComparer.Ordinal);
        if (i < line.Length && line[i] == '{')
        {
            i++;
            if (name is null)
            {
                // {"name"} or {"name",labels}: the quoted metric name first.
                name = ReadName(line, ref i, utf8Names, label: false);
                if (line[i] == ',')
                {
                    i++;
                    Assert.NotEqual('}', line[i]);
                }
                else
                {
                    Assert.Equal('}', line[i]);
                }
            }

            while (line[i] != '}')
            {
                string labelName = ReadName(line, ref i, utf8Names, label: true);
                Assert.Equal('=', line[i]);
                Assert.False(labelName.StartsWith("__", StringComparison.Ordinal), $"Reserved label name in: {line}");
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
                    Assert.NotEqual('}', line[i]);
                }
                else
                {
                    Assert.Equal('}', line[i]);
                }
            }

            i++;
        }

        Assert.Equal(' ', line[i]);
        // OpenMetrics: a timestamp, an exemplar (# {labels} value [timestamp]) or both may follow the value.
        string number = line[(i + 1)..];
        if (openMetrics && number.IndexOf(' ', StringComparison.Ordinal) is var end and >= 0)
        {
            number = number[..end];
        }

        Assert.Matches(@"^([-+]?[0-9.]+([eE][-+]?[0-9]+)?|NaN|[+-]Inf)$", number);
        _ = double.Parse(number.Replace("Inf", "Infinity", StringComparison.Ordinal), CultureInfo.InvariantCulture);
        Assert.NotNull(name);
        return new PrometheusSample(name, labels, number);
    }

    // A metric or label name at line[i]: legacy-valid as it is, or (where UTF-8 names are read) between
    // double quotes, escaped, and then not legacy-valid; i is moved past it.
    private static string ReadName(string line, ref int i, bool utf8Names, bool label)
    {
        string legacy = label ? "^[a-zA-Z_][a-zA-Z0-9_]*$" : "^[a-zA-Z_:][a-zA-Z0-9_:]*$";
        if (i < line.Length && line[i] == '"')
        {
            Assert.True(utf8Names, $"A quoted name where only legacy names are allowed: {line}");
            i++;
            var quoted = new StringBuilder();
            while (line[i] != '"')
            {
                if (line[i] == '\\')
                {
                    i++;
                    quoted.Append(line[i] switch
                    {
                        'n' => '\n',
                        '\\' => '\\',
                        '"' => '"',
                        _ => throw new FormatException($"Bad escape '\\{line[i]}' in: {line}"),
                    });
                }
                else
                {
                    quoted.Append(line[i]);
                }

                i++;
            }

            i++;
            string name = quoted.ToString();
            Assert.DoesNotMatch(legacy, name);
            return name;
        }

        int start = i;
        while (i < line.Length && (char.IsAsciiLetterOrDigit(line[i]) || line[i] == '_' || (line[i] == ':' && !label)))
        {
            i++;
        }

        string unquoted = line[start..i];
        Assert.Matches(legacy, unquoted);
        return unquoted;
    }
}
