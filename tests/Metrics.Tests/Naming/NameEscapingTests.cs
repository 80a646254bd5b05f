using ScalableMetrics.Naming;

namespace ScalableMetrics.Tests.Naming;

/// <summary>
/// The escaping schemes of Prometheus' "UTF-8 metric and label name escaping schemes" document, on
/// its own examples, and the rules prometheus/common's <c>EscapeName</c> and <c>EscapeMetricFamily</c>
/// add where the document is silent.
/// </summary>
public sealed class NameEscapingTests
{
    [Theory]
    // The document's example of each scheme.
    [InlineData("metric.name/with/slashes", "underscores", "metric_name_with_slashes")]
    [InlineData("metric.name.with.dots", "dots", "metric_dot_name_dot_with_dot_dots")]
    // The document writes U__metric_2E_name; prometheus/common, which Prometheus unescapes with, writes lower case.
    [InlineData("metric.name", "values", "U__metric_2e_name")]
    // allow-utf-8: the name as it is.
    [InlineData("metric.name/with/slashes", "allow-utf-8", "metric.name/with/slashes")]
    // dots: '_' doubled, any other character outside the set '__'.
    [InlineData("http.server_duration", "dots", "http_dot_server__duration")]
    [InlineData("a/b", "dots", "a__b")]
    // values: '_' doubled, a leading digit escaped, a character outside the BMP one code point.
    [InlineData("a.b_c", "values", "U__a_2e_b__c")]
    [InlineData("9.lives", "values", "U___39__2e_lives")]
    [InlineData("temp.\U0001F321", "values", "U__temp_2e__1f321_")]
    [InlineData("temp.\U0001F321", "underscores", "temp__")]
    public void TheDocumentsExamplesEscapeAsItSays(string name, string scheme, string expected) =>
        Assert.Equal(expected, NameEscaping.Escape(name, Parse(scheme)));

    [Theory]
    [InlineData("http_requests_total")]
    [InlineData("a:b")]
    [InlineData("U__a_2e_b")]
    public void ALegacyValidNameIsLeftAsItIsUnderEveryScheme(string name)
    {
        // EscapeMetricFamily's rule: escaping applies to names outside the legacy set only.
        foreach (EscapingScheme scheme in Enum.GetValues<EscapingScheme>())
        {
            Assert.Same(name, NameEscaping.Escape(name, scheme));
        }
    }

    [Fact]
    public void ALabelNameIsEscapedWhereItHoldsAColonWhichAMetricNameMayHold()
    {
        Assert.Equal("a_3a_b", NameEscaping.Escape("a:b", EscapingScheme.Values, label: true)[3..]);
        Assert.Equal("a__b", NameEscaping.Escape("a:b", EscapingScheme.Dots, label: true));
        Assert.Equal("a:b", NameEscaping.Escape("a:b", EscapingScheme.Dots, label: false));
        Assert.True(NameEscaping.IsLegacyMetricName("a:b"));
        Assert.False(NameEscaping.IsLegacyLabelName("a:b"));
    }

    [Theory]
    // As EscapeMetricFamily writes them where no other key could be taken for them.
    [InlineData("http.route", "dots", "http_dot_route")]
    [InlineData("http_route", "dots", "http_route")]
    [InlineData("http.route", "values", "U__http_2e_route")]
    [InlineData("http_route", "values", "http_route")]
    // A legacy-valid key that reads as another's escape is escaped itself.
    [InlineData("a_dot_b", "dots", "a__dot__b")]
    [InlineData("x__y", "dots", "x____y")]
    [InlineData("U__a_2e_b", "values", "U__U____a__2e__b")]
    // A leading digit: key_ first, as the default translation writes it.
    [InlineData("1a.b", "dots", "key__1a_dot_b")]
    [InlineData("1a", "dots", "key_1a")]
    public void ALabelNameIsEscapedSoThatNoOtherKeyComesOutAlike(string key, string scheme, string expected) =>
        Assert.Equal(expected, NameEscaping.EscapeLabel(key, Parse(scheme)));

    [Fact]
    public void KeysTheDefaultTranslationKeepsApartStayApartUnderDotsAndValues()
    {
        // Pairs that prometheus/common's EscapeMetricFamily would write alike.
        (string, string)[] pairs = [("a.b", "a_dot_b"), ("_a.b", "1a.b"), ("a.b", "U__a_2e_b"), ("a-b", "a__b")];
        foreach ((string first, string second) in pairs)
        {
            Assert.NotEqual(ExportedNames.TagLabelName(first), ExportedNames.TagLabelName(second));
            Assert.NotEqual(NameEscaping.EscapeLabel(first, EscapingScheme.Dots), NameEscaping.EscapeLabel(second, EscapingScheme.Dots));
            Assert.NotEqual(NameEscaping.EscapeLabel(first, EscapingScheme.Values), NameEscaping.EscapeLabel(second, EscapingScheme.Values));
        }
    }

    [Fact]
    public void ALoneSurrogateIsTheReplacementCharacterUnderValues() =>
        Assert.Equal("U__a_FFFD_", NameEscaping.Escape("a\uD800", EscapingScheme.Values));

    [Theory]
    [InlineData("http.server.request.duration", "s", "Histogram", true, "http.server.request.duration_seconds")]
    [InlineData("http.server.request.duration", "s", "Histogram", false, "http.server.request.duration")]
    [InlineData("http.requests", "{request}", "Counter", true, "http.requests_total")]
    [InlineData("http.requests", "{request}", "Counter", false, "http.requests_total")]
    [InlineData("cpu.utilization", "1", "Gauge", true, "cpu.utilization_ratio")]
    [InlineData("cpu.utilization", "1", "Gauge", false, "cpu.utilization")]
    [InlineData("requests.total", null, "Counter", true, "requests.total_total")]
    [InlineData("elapsed_seconds", "s", "Gauge", true, "elapsed_seconds")]
    public void AUtf8TranslationKeepsTheInstrumentNameAndAppendsSuffixesAsAsked(string instrument, string? unit, string kind, bool withSuffixes, string expected) =>
        Assert.Equal(expected, ExportedNames.Utf8MetricName(instrument, unit, Enum.Parse<ExportedKind>(kind), withSuffixes));

    [Fact]
    public void AFamilysVariantIsItsUtf8NameEscapedWithTheSampleSuffixesAfter()
    {
        ExportedFamily histogram = ExportedFamily.ForHistogram("http.server.request.duration", "s");
        Assert.Same(histogram, histogram.In(withSuffixes: true, EscapingScheme.Underscores));
        Assert.Equal("http_server_request_duration_seconds", histogram.Name);
        ExportedFamily utf8 = histogram.In(withSuffixes: true, EscapingScheme.AllowUtf8);
        Assert.Equal("http.server.request.duration_seconds", utf8.Name);
        Assert.Equal(["http.server.request.duration_seconds_bucket", "http.server.request.duration_seconds_sum", "http.server.request.duration_seconds_count"], utf8.SampleNames);
        Assert.Equal("http_dot_server_dot_request_dot_duration__seconds_bucket", histogram.In(withSuffixes: true, EscapingScheme.Dots).SampleNames[0]);

        // A counter's sample name is escaped whole, as EscapeMetricFamily escapes the family named after it.
        ExportedFamily counter = ExportedFamily.ForCounter("http.requests", "{request}");
        Assert.Equal("http.requests_total", counter.In(withSuffixes: false, EscapingScheme.AllowUtf8).TextName);
        Assert.Equal("http.requests", counter.In(withSuffixes: false, EscapingScheme.AllowUtf8).Name);
        Assert.Equal("U__http_2e_requests__total", counter.In(withSuffixes: true, EscapingScheme.Values).TextName);
    }

    private static EscapingScheme Parse(string scheme) => scheme switch
    {
        "allow-utf-8" => EscapingScheme.AllowUtf8,
        "dots" => EscapingScheme.Dots,
        "values" => EscapingScheme.Values,
        _ => EscapingScheme.Underscores,
    };
}
