"""What the e2e checks share: queries through a real Prometheus server's HTTP API, and the loop
that retries a set of checks until they pass or time runs out, then prints them."""

import json
import sys
import time
import urllib.parse
import urllib.request


def api(prometheus, path, **params):
    """The data of a GET to the HTTP API's `path` (e.g. /api/v1/query_range) with `params`."""
    url = prometheus + path + "?" + urllib.parse.urlencode(params)
    with urllib.request.urlopen(url, timeout=5) as response:
        body = json.load(response)
    if body.get("status") != "success":
        raise RuntimeError(f"{path} {params} failed: {body}")
    return body["data"]


def query(prometheus, promql):
    """The result vector of an instant query."""
    return api(prometheus, "/api/v1/query", query=promql)["result"]


def stored_labels(result):
    """A result's labels as the target exposed them (without the name and the scrape's own labels)."""
    return {k: v for k, v in result["metric"].items() if k not in ("__name__", "job", "instance")}


def run_until_passed(run_checks, seconds):
    """Runs run_checks() (returning (passed, [(ok, line)])) until it passes or `seconds` pass,
    prints every line of the last run, and exits 0 if it passed, else 1."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            passed, checks = run_checks()
        except (OSError, RuntimeError) as error:
            passed, checks = False, [(False, f"query failed: {error}")]
        if passed or time.monotonic() > deadline:
            break
        time.sleep(0.5)

    for ok, line in checks:
        print(("ok    " if ok else "FAIL  ") + line)
    sys.exit(0 if passed else 1)
