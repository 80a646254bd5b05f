using System.Collections.Frozen;
using System.Reflection;
using YamlDotNet.Core;
using YamlDotNet.RepresentationModel;

namespace ScalableMetrics.Exporter.Prometheus.Scraping.Security;

/// <summary>
/// Flattens the web configuration's two sources to the same keys (<c>tls_server_config:cert_file</c>,
/// <c>basic_auth_users:alice</c>) for <see cref="WebConfig.Parse"/>: the YAML file, read with
/// YamlDotNet's representation model (no reflection), and the configuration section, whose keys
/// other than the listener's own options are all web configuration. Thread-safe (no state).
/// </summary>
internal static class WebConfigReader
{
    /// <summary>The web configuration in the YAML text of <paramref name="path"/>.</summary>
    /// <exception cref="InvalidOperationException">The text is not YAML, or not a mapping, or a setting is invalid.</exception>
    public static WebConfig FromYaml(string text, string path)
    {
        var settings = new Dictionary<string, string?>(StringComparer.Ordinal);
        try
        {
            var stream = new YamlStream();
            stream.Load(new StringReader(text));
            if (stream.Documents.Count > 0)
            {
                if (stream.Documents[0].RootNode is not YamlMappingNode root)
                {
                    throw new InvalidOperationException($"The scrape listener's web configuration ({path}) is not a YAML mapping.");
                }

                Flatten(root, prefix: null, settings);
            }
        }
        catch (YamlException e)
        {
            throw new InvalidOperationException($"The scrape listener's web configuration ({path}) is not valid YAML: {e.Message}", e);
        }

        return WebConfig.Parse(settings, path, Path.GetDirectoryName(Path.GetFullPath(path)) ?? Directory.GetCurrentDirectory());
    }

    /// <summary>
    /// The web configuration in <paramref name="section"/>, the listener's configuration section:
    /// every key of it but the listener's own options (<see cref="ListenerOptionKeys"/>), checked
    /// as the file's keys are, so that a misspelled or unsupported key stops the start, named,
    /// rather than leave the listener open to anyone. Null where it holds none.
    /// </summary>
    /// <exception cref="InvalidOperationException">A key is unknown or unsupported, or a setting is invalid.</exception>
    public static WebConfig? FromSection(IConfigurationSection section)
    {
        var settings = new Dictionary<string, string?>(StringComparer.Ordinal);
        foreach (IConfigurationSection child in section.GetChildren())
        {
            if (ListenerOptionKeys.Contains(child.Key))
            {
                continue;
            }

            // The two keys the listener takes are found whatever their case, as GetSection found
            // them before every key was checked; any other is named as written.
            string key = string.Equals(child.Key, WebConfig.TlsKey, StringComparison.OrdinalIgnoreCase) ? WebConfig.TlsKey
                : string.Equals(child.Key, WebConfig.UsersKey, StringComparison.OrdinalIgnoreCase) ? WebConfig.UsersKey
                : child.Key;
            if (child.Value is not null || !child.GetChildren().Any())
            {
                // A key with a value of its own (rate_limit: 1s), or one with nothing under it.
                settings[key] = child.Value;
            }

            foreach (KeyValuePair<string, string?> pair in child.AsEnumerable(makePathsRelative: true))
            {
                if (pair.Value is not null)
                {
                    settings[key + ":" + pair.Key] = pair.Value;
                }
            }
        }

        // Checked even when every value is empty, so that an unknown key is named all the same.
        WebConfig config = WebConfig.Parse(settings, section.Path, Directory.GetCurrentDirectory());
        return settings.Values.Any(static v => v is not null) ? config : null;
    }

    /// <summary>
    /// The keys of the listener's section that are its own options, not web configuration: the
    /// properties the configuration binder sets on <see cref="ScrapeListenerOptions"/> (public and
    /// settable), matched case-insensitively as the binder matches them.
    /// </summary>
    /// <remarks>Taken from the type, so that an option added to it is never refused as an unknown web configuration key.</remarks>
    internal static FrozenSet<string> ListenerOptionKeys { get; } = typeof(ScrapeListenerOptions)
        .GetProperties(BindingFlags.Public | BindingFlags.Instance)
        .Where(static p => p.SetMethod is { IsPublic: true })
        .Select(static p => p.Name)
        .ToFrozenSet(StringComparer.OrdinalIgnoreCase);

    private static void Flatten(YamlNode node, string? prefix, Dictionary<string, string?> settings)
    {
        switch (node)
        {
            case YamlMappingNode mapping:
                foreach (KeyValuePair<YamlNode, YamlNode> child in mapping.Children)
                {
                    string name = child.Key is YamlScalarNode { Value: { } value } ? value : child.Key.ToString();
                    Flatten(child.Value, prefix is null ? name : prefix + ":" + name, settings);
                }

                break;
            case YamlSequenceNode sequence:
                for (int i = 0; i < sequence.Children.Count; i++)
                {
                    Flatten(sequence.Children[i], prefix + ":" + i.ToString(System.Globalization.CultureInfo.InvariantCulture), settings);
                }

                break;
            case YamlScalarNode scalar:
                // "key:" alone is YAML's null, as an empty value.
                settings[prefix ?? string.Empty] = scalar.Value is "" or "~" or "null" && scalar.Style == ScalarStyle.Plain ? null : scalar.Value;
                break;
        }
    }
}
