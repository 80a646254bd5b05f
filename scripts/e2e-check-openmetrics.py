"""Parses OpenMetrics bodies with a strict parser no one here wrote: Debian's python3-prometheus-client
(prometheus_client.openmetrics.parser), which enforces OpenMetrics 1.0's rules (one family per
name, counter-like samples neither negative nor NaN, a histogram's _sum and _count together and
never with negative buckets, # EOF last, ...).

    python3 scripts/e2e-check-openmetrics.py URL...

Each URL is scraped with Prometheus' OpenMetrics Accept header; prints one line per body (its
families and samples, or the parser's error) and exits 1 if any body fails to parse."""

import os
import sys
import urllib.request

from prometheus_client.openmetrics.parser import text_string_to_metric_families

# scripts/e2e.sh sets SCRAPE_AUTHORIZATION for the worker's scrape listener (basic auth), and
# SSL_CERT_FILE to the CA of its TLS certificate, which urllib's default context then trusts.
AUTH = {"Authorization": os.environ["SCRAPE_AUTHORIZATION"]} if os.environ.get("SCRAPE_AUTHORIZATION") else {}
ACCEPT = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"


def check(url):
    request = urllib.request.Request(url, headers={"Accept": ACCEPT, **AUTH})
    with urllib.request.urlopen(request, timeout=10) as response:
        content_type = response.headers.get("Content-Type", "")
        body = response.read().decode("utf-8")
    if not content_type.startswith("application/openmetrics-text"):
        return False, f"{url}: answered {content_type!r}, not OpenMetrics"
    try:
        families = list(text_string_to_metric_families(body))
    except ValueError as error:
        return False, f"{url}: rejected by the strict OpenMetrics parser: {error}"
    samples = sum(len(family.samples) for family in families)
    return True, f"{url}: {len(families)} families, {samples} samples, valid OpenMetrics 1.0"


def main():
    passed = True
    for url in sys.argv[1:]:
        ok, line = check(url)
        passed &= ok
        print(("ok    " if ok else "FAIL  ") + line)
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
