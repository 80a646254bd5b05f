#!/usr/bin/env python3
"""Scrapes the sample's /metrics from 16 threads at once, each in a loop, until STOP_FILE exists,
and fails unless every scrape answered 200 with a whole body (its Content-Length read in full,
ending in a newline, every line a comment or a sample of the text format 0.0.4) and every
scraper's webapi_requests_total{http_route="/hello",http_response_status_code="200"} never went
down from one of its scrapes to its next.

    python3 scripts/e2e-concurrent-scrapers.py METRICS_URL STOP_FILE

Prints one summary line (scrapes, problems), then the first problems; exits 0 or 1.
"""
import os
import re
import sys
import threading
import urllib.error
import urllib.request

URL, STOP_FILE = sys.argv[1], sys.argv[2]
# scripts/e2e.sh sets SCRAPE_AUTHORIZATION for the worker's scrape listener (basic auth), and
# SSL_CERT_FILE to the CA of its TLS certificate, which urllib's default context then trusts.
AUTH = {"Authorization": os.environ["SCRAPE_AUTHORIZATION"]} if os.environ.get("SCRAPE_AUTHORIZATION") else {}
SCRAPERS = 16

# A sample line of the text format 0.0.4: name, optional labels with escaped values, value, optional timestamp.
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE = re.compile(
    r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:' + LABEL + r')(?:,' + LABEL + r')*,?\}|\{\})? '
    r'([-+]?(?:[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?|Inf|NaN))( -?[0-9]+)?$')
COMMENT = re.compile(r'^# (?:HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|HELP [a-zA-Z_:][a-zA-Z0-9_:]*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (?:counter|gauge|histogram|summary|untyped))$|^#(?! (?:HELP|TYPE) ).*$')
HELLO = re.compile(r'^webapi_requests_total\{(?=[^\n]*http_route="/hello")(?=[^\n]*http_response_status_code="200")[^\n]*\} (\S+)$', re.M)

problems = []
scrapes = [0] * SCRAPERS
lock = threading.Lock()


def problem(text):
    with lock:
        problems.append(text)


def check(body):
    """The problem with a body, or None; the /hello 200 count (0 if absent)."""
    if not body.endswith(b"\n"):
        return "body does not end with a newline", 0
    text = body.decode("utf-8")
    for line in text.splitlines():
        if line and not SAMPLE.match(line) and not COMMENT.match(line):
            return "unparseable line: " + line[:200], 0
    hellos = HELLO.findall(text)
    if len(hellos) > 1:
        return "more than one /hello 200 series", 0
    return None, float(hellos[0]) if hellos else 0


def scrape_loop(index):
    previous = 0
    while not os.path.exists(STOP_FILE):
        number = scrapes[index] + 1
        scrapes[index] = number
        try:
            with urllib.request.urlopen(urllib.request.Request(URL, headers=AUTH), timeout=10) as response:
                body = response.read()
                length = response.headers.get("Content-Length")
        except urllib.error.HTTPError as error:
            problem(f"scraper {index} scrape {number}: HTTP {error.code}")
            continue
        except Exception as error:  # an incomplete body (http.client.IncompleteRead), a reset, a timeout
            problem(f"scraper {index} scrape {number}: {type(error).__name__}: {error}")
            continue
        if length is not None and int(length) != len(body):
            problem(f"scraper {index} scrape {number}: {len(body)} bytes of {length}")
            continue
        error, count = check(body)
        if error:
            problem(f"scraper {index} scrape {number}: {error}")
        elif count < previous:
            problem(f"scraper {index} scrape {number}: /hello count went down from {previous} to {count}")
        else:
            previous = count


threads = [threading.Thread(target=scrape_loop, args=(i,), daemon=True) for i in range(SCRAPERS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()

print(f"{SCRAPERS} concurrent scrapers: {sum(scrapes)} scrapes (fewest by one scraper {min(scrapes)}), {len(problems)} problems")
for line in problems[:10]:
    print("FAIL " + line)
sys.exit(1 if problems or min(scrapes) == 0 else 0)
