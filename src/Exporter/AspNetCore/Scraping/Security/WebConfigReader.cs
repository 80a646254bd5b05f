using YamlDotNet.Core;
using YamlDotNet.RepresentationModel;

namespace ScalableMetrics.Exporter.Prometheus.Scraping.Security;

/// <summary>
/// Flattens the web configuration's two sources to the same keys (<c>tls_server_config:cert_file</c>,
/// <c>basic_auth_users:alice</c>) for <see cref="WebConfig.Parse"/>: the YAML file, read with
/// YamlDotNet's representation model (no reflection), and the configuration section. Thread-safe (no state).
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

    /// <summary>The web configuration in the keys <c>tls_server_config</c> and <c>basic_auth_users</c> of <paramref name="section"/>.</summary>
    /// <exception cref="InvalidOperationException">A setting is invalid.</exception>
    public static WebConfig FromSection(IConfigurationSection section)
    {
        var settings = new Dictionary<string, string?>(StringComparer.Ordinal);
        foreach (string key in (ReadOnlySpan<string>)["tls_server_config", "basic_auth_users"])
        {
            foreach (KeyValuePair<string, string?> pair in section.GetSection(key).AsEnumerable(makePathsRelative: true))
            {
                if (pair.Value is not null)
                {
                    settings[key + ":" + pair.Key] = pair.Value;
                }
            }
        }

        return WebConfig.Parse(settings, section.Path, Directory.GetCurrentDirectory());
    }

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
