#!/usr/bin/env bash
# End-to-end check of the sample API and its Prometheus endpoint, run from the repository root:
#   bash scripts/e2e.sh
# Builds samples/WebApi in Release, starts it on a free loopback port with its awkward series
# (--Sample:AwkwardSeries=true, see samples/WebApi/AwkwardSeries.cs), starts a real Prometheus
# server (temporary config and storage, 1 s scrape interval, on a free loopback port) scraping
# it, sends exactly $REQUESTS requests to /hello with ApacheBench while scraping /metrics every
# 100 ms, and fails unless every scrape's /hello 200 count is at least the one before, promtool
# accepts a scrape, 16 concurrent scrapers looping on /metrics during the load get only whole,
# parseable 200 bodies whose /hello count never goes down (scripts/e2e-concurrent-scrapers.py),
# ab reports no failed request, the counter equals ab's "Complete requests"
# once ab is done, and Prometheus' HTTP API returns the exact value of every awkward series (every
# kind of instrument, a callback that throws left out) and of the /hello count, the /hello request
# duration histogram's _count equal to that count, its buckets cumulative, at ASP.NET Core's
# advised boundaries and ending in le="+Inf" equal to _count, no /hello request left in flight,
# ASP.NET Core's own http_server_request_duration_seconds_count{http_route="/hello",...} (meter
# Microsoft.AspNetCore.Hosting, taken through AddMeter) equal to that count too, the runtime's GC
# and thread-pool metrics (System.Runtime) and Kestrel's connection metrics present, and a finite
# answer to histogram_quantile(0.99, rate(webapi_request_duration_seconds_bucket[1m]))
# (rate needs two samples in the minute: Prometheus scrapes every second, and the load starts only
# once it has stored the /hello series at zero; scripts/e2e-check-prometheus.py).
# It also builds and starts samples/Worker (a generic host, no ASP.NET Core server) doing exactly
# $WORKER_ITEMS items across one task per processor, served by the standalone scrape listener on
# a free loopback port; checks the listener's 404 and 405 (a POST with Content-Length: 0: without
# one, HttpListener itself answers 411); has the same Prometheus scrape it as a
# second job, and reads back through the query API its counter and histogram count, exactly
# $WORKER_ITEMS (scripts/e2e-check-worker.py).
# A second Prometheus, Debian trixie's 2.53.3 (fetched from Debian's archive into a cache, run
# from there, nothing installed: see NATIVE_PROMETHEUS_* below; the first stays bookworm's 2.42, so
# both releases are covered), started with --enable-feature=native-histograms, scrapes both in the
# protobuf exposition: the same checks run against it (every family, every value, through the
# other format), and scripts/e2e-check-native.py reads back the worker's native histogram of item
# numbers 1..$WORKER_ITEMS: its exact count and sum, and histogram_quantile(0.99, rate(...[1m]))
# within the scale's relative error of the true quantile. That histogram has classic boundaries
# too, so its protobuf message carries classic buckets beside the native ones; the native server
# stores only the native one (scrape_classic_histograms left off; 2.42 has no such option), so
# scripts/e2e-check-classic.py scrapes the worker in protobuf itself, decodes the message by hand,
# and checks its classic buckets against the _bucket series the OpenMetrics-scraping Prometheus
# stored. The worker waits for a start file,
# created once both servers have stored its series at zero.
# Exemplars: the sample runs with ScalableMetrics:Registry:ExemplarFilter=TraceBased, ab sends every request
# with one sampled W3C traceparent ($TRACEPARENT), both servers keep exemplars
# (--enable-feature=exemplar-storage), and scripts/e2e-check-exemplars.py reads back, from each,
# exemplars of that trace on the sample's counter and histogram and on ASP.NET Core's histogram.
# The worker runs with a view that keeps exemplars of its native histogram (ExemplarFilter AlwaysOn):
# scripts/e2e-check-native-exemplars.py decodes its protobuf scrape with classes protoc generates
# from client_model's metrics.proto and checks Histogram.exemplars (timestamps, values, none on the
# classic buckets), then reads them back from the native server's exemplar API
# (/api/v1/query_exemplars): some stored, each an item number the worker recorded, in the run's
# time, without trace_id or span_id (recorded outside a trace), at least one of the message's to the
# millisecond. Prometheus reads that field from 2.51.0 only (bookworm's 2.42 cannot: hence trixie's).
# A second make of scraper and a strict parser that no one here wrote: VictoriaMetrics (Debian's
# victoria-metrics) scrapes both the sample and the worker beside Prometheus, and
# scripts/e2e-check-victoriametrics.py reads back through its query API the exact /hello count,
# the duration histogram's _count and the worker's items; and every OpenMetrics body the sample
# (awkward series included) and the worker serve after the load goes through
# prometheus_client.openmetrics.parser (Debian's python3-prometheus-client, run by Debian's
# /usr/bin/python3), which enforces OpenMetrics 1.0 (scripts/e2e-check-openmetrics.py).
# The Aspire dashboard, pinned and restored from the package source, as a real OTLP backend:
# scripts/e2e-aspire.sh, run at the end (names, units, bucket bounds, the /hello count).
# OTLP: the sample pushes (cumulative, OTLP/gRPC) to one receiver, a grpcio server (Debian's
# python3-grpcio), and the worker (delta, gzip, OTLP/HTTP) to another, every second
# (scripts/e2e-otlp-receiver.py, storing every request); once both are stopped
# (each sends a final export on stop), scripts/e2e-check-otlp.py decodes every body with classes
# protoc generates from the vendored opentelemetry-proto files (tests/Exporter.Tests/OpenTelemetry/Otlp/proto)
# and checks that ASP.NET Core's http.server.request.duration and the sample's histogram count
# exactly the requests sent in the last export, that no cumulative count goes down across exports,
# and that the worker's deltas add up to its totals.
# The worker's listener serves HTTPS with basic authentication (a web-config.yml, a CA made for the
# run by openssl, a bcrypt password by htpasswd): Prometheus and VictoriaMetrics scrape it with
# scheme https, tls_config.ca_file and basic_auth; a scrape without credentials must get 401 and
# one trusting another CA must fail the handshake; 16 concurrent scrapers load it over TLS during
# ab as they load the sample. The worker's OTLP/HTTP receiver requires a client certificate of
# that CA (mutual TLS), which the worker presents from OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE.
#
# Views: the sample runs with a view (ScalableMetrics:Registry:Views) that drops url.scheme from
# ASP.NET Core's http.server.request.duration and re-buckets it ($VIEW_BOUNDARIES): what the real
# Prometheus stores is that (scripts/e2e-check-prometheus.py). dotnet-counters (installed with
# `dotnet tool install`, pinned) attached to the sample reads the registry's counter and histogram
# under meter ScalableMetrics while /metrics is requested (scripts/e2e-check-counters.py).
# Installs ab (apache2-utils), prometheus and promtool (prometheus, bookworm's), victoria-metrics,
# python3-prometheus-client, protoc (protobuf-compiler) and its well-known types (libprotobuf-dev),
# python3-protobuf, python3-grpcio and curl from Debian's packages if missing, and fetches (apt-get
# download, into a cache) trixie's prometheus package for the native server.
set -euo pipefail

REQUESTS=200000
CONCURRENCY=8
SCRAPE_INTERVAL_US=100000
STARTUP_TIMEOUT_SECONDS=60
WORKER_ITEMS=1000000
TRACE_ID=4bf92f3577b34da6a3ce929d0e0e4736
TRACEPARENT="00-$TRACE_ID-00f067aa0ba902b7-01"
# The view's boundaries for ASP.NET Core's request duration (scripts/e2e-check-prometheus.py holds the same).
VIEW_BOUNDARIES=(0.001 0.01 0.1 1 10 30 60)
DOTNET_COUNTERS_VERSION=10.0.750501
# promtool's lint problems (exit 3) accepted, each for one family only: names the runtime gives its
# own System.Runtime gauges ("non-histogram and non-summary metrics should not have "_count"
# suffix"), exported as OpenTelemetry's Prometheus conversion writes them. Any other lint problem,
# and any parse error (exit 1), fails.
ACCEPTED_LINT_FAMILIES=" dotnet_process_cpu_count dotnet_timer_count dotnet_assembly_count "

# Debian's python, which Debian's python3-prometheus-client installs into (a python3 earlier on
# PATH, pyenv's say, does not see it).
DEBIAN_PYTHON=/usr/bin/python3

# The native-histograms server runs Debian trixie's Prometheus, not bookworm's 2.42: 2.42 does not
# read a native histogram's exemplars (Histogram.exemplars, read from 2.51.0). Its package is
# fetched from the Debian archive this machine's apt already uses (as apt fetches any package: the archive's signature
# and the package's hash checked) into a cache of its own ($SCALABLEMETRICS_E2E_CACHE, by default
# ${XDG_CACHE_HOME:-~/.cache}/scalablemetrics-e2e; later runs take it from there), and only its
# binary (linked to libc only, it runs on bookworm) is run from there: nothing is installed, and the
# system's apt sources stay as they are. The OpenMetrics server keeps bookworm's 2.42
# (/usr/bin/prometheus), so both releases stay covered. No download, no run: the e2e fails, it does
# not skip the check.
NATIVE_PROMETHEUS_SUITE=trixie
NATIVE_PROMETHEUS_VERSION=2.53.3+ds1-2
NATIVE_PROMETHEUS_CACHE=${SCALABLEMETRICS_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/scalablemetrics-e2e}/prometheus-$NATIVE_PROMETHEUS_SUITE-$NATIVE_PROMETHEUS_VERSION
# The first release that stores a native histogram's exemplars from a protobuf scrape (prometheus/prometheus#13488).
NATIVE_EXEMPLARS_RELEASE=2.51.0

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1

fail() {
  echo "e2e: FAIL: $*" >&2
  exit 1
}

install_missing_tools() {
  local missing=()
  command -v ab >/dev/null 2>&1 || missing+=(apache2-utils)
  { command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1; } || missing+=(prometheus)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  command -v victoria-metrics >/dev/null 2>&1 || missing+=(victoria-metrics)
  "$DEBIAN_PYTHON" -c 'import prometheus_client.openmetrics.parser' >/dev/null 2>&1 || missing+=(python3-prometheus-client)
  command -v protoc >/dev/null 2>&1 || missing+=(protobuf-compiler)
  # protoc's well-known types (google/protobuf/timestamp.proto, which client_model's metrics.proto imports).
  [[ -f /usr/include/google/protobuf/timestamp.proto ]] || missing+=(libprotobuf-dev)
  "$DEBIAN_PYTHON" -c 'import google.protobuf' >/dev/null 2>&1 || missing+=(python3-protobuf)
  "$DEBIAN_PYTHON" -c 'import grpc' >/dev/null 2>&1 || missing+=(python3-grpcio)
  # The script installs no recommends of prometheus (node exporter, ...).
  bash scripts/install-packages.sh "${missing[@]}"
}

# The value of the /hello 200 sample of webapi_requests_total in a scrape file; 0 if absent.
hello_count() {
  awk '
    /^webapi_requests_total\{/ && /http_route="\/hello"/ && /http_response_status_code="200"/ { n++; value = $NF }
    END { if (n > 1) { print "more than one /hello 200 series" > "/dev/stderr"; exit 2 } print (n ? value : 0) }
  ' "$1"
}

# Scrapes until $WORK/ab.done appears; one count per line in $WORK/counts, problems in $WORK/scrape.errors.
scrape_loop() {
  local previous=0 count scrape=0 started elapsed_us
  while [[ ! -e $WORK/ab.done ]]; do
    started=${EPOCHREALTIME/./}
    scrape=$((scrape + 1))
    if ! curl -sf --max-time 5 -o "$WORK/scrape.prom" "$BASE_URL/metrics"; then
      echo "scrape $scrape: request failed" >>"$WORK/scrape.errors"
    elif ! count=$(hello_count "$WORK/scrape.prom"); then
      echo "scrape $scrape: unreadable" >>"$WORK/scrape.errors"
    else
      if ((count < previous)); then
        echo "scrape $scrape: count went down from $previous to $count" >>"$WORK/scrape.errors"
      fi
      previous=$count
      echo "$count" >>"$WORK/counts"
    fi
    # One scrape per interval: sleep what the scrape left of it.
    elapsed_us=$((${EPOCHREALTIME/./} - started))
    if ((elapsed_us < SCRAPE_INTERVAL_US)); then
      sleep "0.$(printf '%06d' $((SCRAPE_INTERVAL_US - elapsed_us)))"
    fi
  done
}

# Sets NATIVE_PROMETHEUS to Debian $NATIVE_PROMETHEUS_SUITE's prometheus binary, fetched once into
# $NATIVE_PROMETHEUS_CACHE by apt-get with a sources list, package lists and a download cache of its
# own there (no root needed). Takes $NATIVE_PROMETHEUS_VERSION, or, where the suite no longer serves
# it (a point release or a rebuild replaced it), the suite's current prometheus, saying so. Fails
# unless the binary is $NATIVE_EXEMPLARS_RELEASE or later. Runs at once share the cache under a lock.
fetch_native_prometheus() {
  local cache=$NATIVE_PROMETHEUS_CACHE apt_dir lock archive
  local -a apt
  mkdir -p "$cache" || fail "could not make the cache $cache"
  exec {lock}>"$cache/lock"
  flock "$lock"
  # What a run killed half-way left.
  rm -rf "$cache"/apt.* "$cache/prometheus.partial"
  if [[ ! -x $cache/prometheus ]]; then
    apt_dir=$(mktemp -d "$cache/apt.XXXXXX")
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/deb"
    # The archive the machine's own sources name for its release (not -security, -updates or -backports).
    archive=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' \
      | awk '$2 !~ /-(security|updates|backports)$/ { print $1; exit }')
    # No package lists yet (apt-get update never ran): the sources files themselves.
    [[ -n $archive ]] || archive=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null \
      | awk '/^URIs:/ && $2 !~ /-security/ { print $2; exit }')
    [[ -n $archive ]] || archive=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
      | awk '$1 == "deb" && $2 !~ /-security/ { print $2; exit }')
    [[ -n $archive ]] || fail "apt names no Debian archive on this machine (apt-get update first?)"
    echo "deb $archive $NATIVE_PROMETHEUS_SUITE main" >"$apt_dir/sources.list"
    # APT::Sandbox::User: downloads run as the caller, who owns these folders (not as _apt).
    apt=(apt-get -qq -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "APT::Sandbox::User=$(id -un)")
    echo "e2e: fetching prometheus $NATIVE_PROMETHEUS_VERSION from Debian $NATIVE_PROMETHEUS_SUITE ($archive) into $cache"
    "${apt[@]}" update >"$apt_dir/apt.log" 2>&1 \
      || fail "could not read Debian $NATIVE_PROMETHEUS_SUITE's package lists from $archive (no network?): $(tail -n 3 "$apt_dir/apt.log" | tr '\n' ' ')"
    if ! (cd "$apt_dir/deb" && "${apt[@]}" download "prometheus=$NATIVE_PROMETHEUS_VERSION") >>"$apt_dir/apt.log" 2>&1; then
      echo "e2e: Debian $NATIVE_PROMETHEUS_SUITE no longer serves prometheus $NATIVE_PROMETHEUS_VERSION; taking its current prometheus"
      (cd "$apt_dir/deb" && "${apt[@]}" download prometheus) >>"$apt_dir/apt.log" 2>&1 \
        || fail "could not download prometheus from Debian $NATIVE_PROMETHEUS_SUITE: $(tail -n 3 "$apt_dir/apt.log" | tr '\n' ' ')"
    fi
    dpkg-deb -x "$apt_dir"/deb/prometheus_*.deb "$apt_dir/root" || fail "could not unpack $(ls "$apt_dir"/deb)"
    check_native_prometheus "$apt_dir/root/usr/bin/prometheus"
    # Renamed into place: a run killed half-way leaves no partial binary for the next one.
    cp "$apt_dir/root/usr/bin/prometheus" "$cache/prometheus.partial" && mv -f "$cache/prometheus.partial" "$cache/prometheus" \
      || fail "could not copy prometheus into $cache"
    rm -rf "$apt_dir"
  fi
  exec {lock}>&-
  NATIVE_PROMETHEUS=$cache/prometheus
  check_native_prometheus "$NATIVE_PROMETHEUS"
}

# Fails unless the prometheus binary $1 runs and is $NATIVE_EXEMPLARS_RELEASE or later.
check_native_prometheus() {
  local release
  release=$("$1" --version 2>&1 | awk 'NR == 1 { print $3 }') || fail "$1 does not run"
  # 2.53.3+ds1 -> 2.53.3; sort -V -C: in order, so at least $NATIVE_EXEMPLARS_RELEASE.
  printf '%s\n%s\n' "$NATIVE_EXEMPLARS_RELEASE" "${release%%[+-]*}" | sort -V -C \
    || fail "$1 is prometheus ${release:-of no version}, older than $NATIVE_EXEMPLARS_RELEASE"
}

# A free TCP port on the loopback interface.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Makes $WORK/tls for the worker: a CA made for this run (ca.pem), the listener's certificate for
# 127.0.0.1 (worker.pem/.key), the OTLP receiver's (receiver.pem/.key) and the worker's client
# certificate (client.pem/.key) it signed, another CA no one trusts (other-ca.pem), the listener's
# web-config.yml with the user prometheus and a bcrypt hash of a random password, and that password
# in password (Prometheus' password_file). Sets WORKER_AUTHORIZATION and WORKER_CURL (curl's TLS
# and credentials options for the worker).
make_worker_tls() {
  local dir=$WORK/tls name password
  mkdir -p "$dir"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "/CN=e2e CA"     -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null || fail "openssl could not make the CA"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "/CN=e2e other CA"     -keyout "$dir/other-ca.key" -out "$dir/other-ca.pem" 2>/dev/null || fail "openssl could not make the other CA"
  for name in worker receiver client; do
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=e2e $name"       -keyout "$dir/$name.key" -out "$dir/$name.csr" 2>/dev/null || fail "openssl could not make the $name key"
    if [[ $name == client ]]; then
      printf 'basicConstraints=critical,CA:FALSE\nextendedKeyUsage=clientAuth\n' >"$dir/$name.ext"
    else
      printf 'basicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n' >"$dir/$name.ext"
    fi
    openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 1 \
      -extfile "$dir/$name.ext" -out "$dir/$name.pem" 2>/dev/null || fail "openssl could not sign the $name certificate"
  done
  password=$(openssl rand -hex 16)
  printf '%s' "$password" >"$dir/password"
  printf '%s\n' \
    'tls_server_config:' \
    '  cert_file: worker.pem' \
    '  key_file: worker.key' \
    'basic_auth_users:' \
    "  prometheus: $(htpasswd -nbBC 10 prometheus "$password" | cut -d: -f2)" >"$dir/web-config.yml"
  WORKER_AUTHORIZATION="Basic $(printf 'prometheus:%s' "$password" | base64 -w0)"
  WORKER_CURL=(--cacert "$dir/ca.pem" -H "Authorization: $WORKER_AUTHORIZATION")
}

# Starts the Prometheus binary $2 as one named $1 scraping the sample and the worker every second,
# with the flags after $2; prints its URL, and adds its pid to PROMETHEUS_PIDS.
start_prometheus() {
  local name=$1 binary=$2 port target=${BASE_URL#http://} pid url
  shift 2
  port=$(free_port)
  printf '%s\n' \
    'global:' \
    '  scrape_interval: 1s' \
    '  scrape_timeout: 1s' \
    'scrape_configs:' \
    '  - job_name: sample' \
    '    static_configs:' \
    "      - targets: ['$target']" \
    '  - job_name: worker' \
    '    scheme: https' \
    '    tls_config:' \
    "      ca_file: '$WORK/tls/ca.pem'" \
    '    basic_auth:' \
    '      username: prometheus' \
    "      password_file: '$WORK/tls/password'" \
    '    static_configs:' \
    "      - targets: ['${WORKER_URL#https://}']" >"$WORK/$name.yml"
  "$binary" --config.file="$WORK/$name.yml" --storage.tsdb.path="$WORK/$name-tsdb" \
    --web.listen-address="127.0.0.1:$port" "$@" >"$WORK/$name.log" 2>&1 &
  pid=$!
  PROMETHEUS_PIDS+=("$pid")
  url="http://127.0.0.1:$port"
  for ((i = 0; i < STARTUP_TIMEOUT_SECONDS * 10; i++)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 20 "$WORK/$name.log" >&2
      fail "$name exited during start-up"
    fi
    if curl -sf --max-time 2 -o /dev/null "$url/-/ready"; then
      echo "$url"
      return
    fi
    sleep 0.1
  done
  fail "$name was not ready within $STARTUP_TIMEOUT_SECONDS s"
}

# Starts VictoriaMetrics scraping what the Prometheus named $1 scrapes (its config file), every
# second; prints its URL, and adds its pid to PROMETHEUS_PIDS.
start_victoriametrics() {
  local config="$WORK/$1.yml" port pid url
  port=$(free_port)
  # -search.latencyOffset=0s: a query sees a sample as soon as it is stored, not 30 s later.
  victoria-metrics -promscrape.config="$config" -storageDataPath="$WORK/victoriametrics-data" \
    -httpListenAddr="127.0.0.1:$port" -search.latencyOffset=0s -search.disableCache \
    -loggerLevel=ERROR >"$WORK/victoriametrics.log" 2>&1 &
  pid=$!
  PROMETHEUS_PIDS+=("$pid")
  url="http://127.0.0.1:$port"
  for ((i = 0; i < STARTUP_TIMEOUT_SECONDS * 10; i++)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 20 "$WORK/victoriametrics.log" >&2
      fail "victoria-metrics exited during start-up"
    fi
    if curl -sf --max-time 2 -o /dev/null "$url/health"; then
      echo "$url"
      return
    fi
    sleep 0.1
  done
  fail "victoria-metrics was not ready within $STARTUP_TIMEOUT_SECONDS s"
}

# Waits until the Prometheus at $1 has stored the /hello duration series, at zero since the sample
# creates it at start, and each query after $1 has a result (the worker's native histogram at zero,
# since the worker waits before its first item): rate() in the quantile queries then has a sample
# from before the work, however short the work is next to the scrape interval.
wait_for_first_scrape() {
  local url=$1 query
  shift
  for query in 'webapi_request_duration_seconds_count{http_route="/hello"}' "$@"; do
    for ((i = 0; i < STARTUP_TIMEOUT_SECONDS * 10; i++)); do
      if curl -sf --max-time 2 -G --data-urlencode "query=$query" "$url/api/v1/query" | grep -q '"value"'; then
        continue 2
      fi
      sleep 0.1
    done
    fail "the prometheus at $url had not stored $query within $STARTUP_TIMEOUT_SECONDS s"
  done
}

# Starts an OTLP receiver storing requests in $WORK/otlp-$1, OTLP/HTTP or, with a second argument
# --grpc, OTLP/gRPC, or with "--tls DIR" OTLP/HTTP requiring a client certificate (mutual TLS);
# prints its base URL, and adds its pid to PROMETHEUS_PIDS.
start_otlp_receiver() {
  local name=$1 pid scheme=http
  [[ ${2:-} != --tls* ]] || scheme=https
  "$DEBIAN_PYTHON" scripts/e2e-otlp-receiver.py ${2:-} "$WORK/otlp-$name.port" "$WORK/otlp-$name" >"$WORK/otlp-$name.log" 2>&1 &
  pid=$!
  PROMETHEUS_PIDS+=("$pid")
  for ((i = 0; i < STARTUP_TIMEOUT_SECONDS * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || fail "the OTLP receiver $name exited during start-up: $(tail -n 5 "$WORK/otlp-$name.log")"
    if [[ -s $WORK/otlp-$name.port ]]; then
      echo "$scheme://127.0.0.1:$(<"$WORK/otlp-$name.port")"
      return
    fi
    sleep 0.1
  done
  fail "the OTLP receiver $name did not start within $STARTUP_TIMEOUT_SECONDS s"
}

# Stops the process $1 (named $2) with SIGTERM, as a service manager does, and waits for it: the
# host's graceful stop sends the OTLP exporter's final export.
stop_gracefully() {
  local pid=$1 name=$2 status=0
  kill -TERM "$pid" 2>/dev/null || fail "$name had exited before the OTLP check"
  wait "$pid" || status=$?
  ((status == 0)) || fail "$name exited with status $status on SIGTERM"
}

cleanup() {
  local status=$?
  for pid in "${PROMETHEUS_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [[ -n ${WORKER_CONCURRENT_PID:-} ]]; then
    kill "$WORKER_CONCURRENT_PID" 2>/dev/null || true
    wait "$WORKER_CONCURRENT_PID" 2>/dev/null || true
  fi
  if [[ -n ${CONCURRENT_PID:-} ]]; then
    kill "$CONCURRENT_PID" 2>/dev/null || true
    wait "$CONCURRENT_PID" 2>/dev/null || true
  fi
  if [[ -n ${SCRAPER_PID:-} ]]; then
    kill "$SCRAPER_PID" 2>/dev/null || true
    wait "$SCRAPER_PID" 2>/dev/null || true
  fi
  if [[ -n ${WORKER_PID:-} ]]; then
    kill "$WORKER_PID" 2>/dev/null || true
    wait "$WORKER_PID" 2>/dev/null || true
  fi
  if [[ -n ${APP_PID:-} ]]; then
    kill "$APP_PID" 2>/dev/null || true
    wait "$APP_PID" 2>/dev/null || true
  fi
  if ((status != 0)) && [[ -s ${WORK:-}/app.log ]]; then
    echo "e2e: sample's output:" >&2
    tail -n 40 "$WORK/app.log" >&2
  fi
  if ((status != 0)) && [[ -s ${WORK:-}/worker.log ]]; then
    echo "e2e: worker's output:" >&2
    tail -n 20 "$WORK/worker.log" >&2
  fi
  rm -rf "${WORK:-}"
  exit "$status"
}

install_missing_tools
fetch_native_prometheus
PROMETHEUS_PIDS=()
WORK=$(mktemp -d)
trap cleanup EXIT

mkdir -p "$WORK/otlp-py"
OTLP_PROTO=tests/Exporter.Tests/OpenTelemetry/Otlp/proto
protoc -I "$OTLP_PROTO" --python_out="$WORK/otlp-py" $(cd "$OTLP_PROTO" && find opentelemetry -name '*.proto') || fail "protoc could not generate the OTLP classes"
# client_model's metrics.proto, copied out of io/prometheus/client: Python's own io module would hide a package of that name.
mkdir -p "$WORK/prometheus-proto" "$WORK/prometheus-py"
cp tests/Exporter.Tests/Prometheus/Exposition/proto/io/prometheus/client/metrics.proto "$WORK/prometheus-proto/"
protoc -I "$WORK/prometheus-proto" --python_out="$WORK/prometheus-py" metrics.proto || fail "protoc could not generate the client_model classes"
# Started in this shell, not in $( ), so that their pids stay in PROMETHEUS_PIDS for cleanup.
start_otlp_receiver sample --grpc >"$WORK/otlp-sample.url"
SAMPLE_OTLP_URL=$(<"$WORK/otlp-sample.url")
make_worker_tls
start_otlp_receiver worker "--tls $WORK/tls" >"$WORK/otlp-worker.url"
WORKER_OTLP_URL=$(<"$WORK/otlp-worker.url")
echo "e2e: OTLP receivers on $SAMPLE_OTLP_URL (sample: gRPC, grpcio $("$DEBIAN_PYTHON" -c 'import grpc; print(grpc.__version__)'), cumulative) and $WORKER_OTLP_URL (worker: HTTP, delta, gzip, mutual TLS); protoc $(protoc --version | awk '{ print $2 }')"
# The worker's receiver takes no push without a client certificate of the run's CA.
! curl -s --max-time 5 -o /dev/null --cacert "$WORK/tls/ca.pem" -X POST -H 'Content-Type: application/x-protobuf' --data-binary '' "$WORKER_OTLP_URL/v1/metrics" \
  || fail "the worker's OTLP receiver took a push without a client certificate"

echo "e2e: building samples/WebApi (Release)"
dotnet build samples/WebApi -c Release -nologo -v quiet -clp:ErrorsOnly >"$WORK/build.log" 2>&1 || {
  cat "$WORK/build.log" >&2
  fail "build failed"
}

# The view of ASP.NET Core's request duration: url.scheme dropped, the boundaries re-bucketed.
VIEW_ARGS=(--ScalableMetrics:Registry:Views:0:Meter=Microsoft.AspNetCore.Hosting
  --ScalableMetrics:Registry:Views:0:Instrument=http.server.request.duration
  --ScalableMetrics:Registry:Views:0:ExcludedTagKeys:0=url.scheme)
for i in "${!VIEW_BOUNDARIES[@]}"; do
  VIEW_ARGS+=("--ScalableMetrics:Registry:Views:0:HistogramBoundaries:$i=${VIEW_BOUNDARIES[$i]}")
done

# Port 0: the sample binds a free port and prints it ("Listening on http://127.0.0.1:PORT").
dotnet samples/WebApi/bin/Release/net10.0/ScalableMetrics.Samples.WebApi.dll --urls http://127.0.0.1:0 \
  --Sample:AwkwardSeries=true --ScalableMetrics:Registry:ExemplarFilter=TraceBased "${VIEW_ARGS[@]}" \
  --OTEL_EXPORTER_OTLP_ENDPOINT="$SAMPLE_OTLP_URL" --OTEL_EXPORTER_OTLP_PROTOCOL=grpc --OTEL_METRIC_EXPORT_INTERVAL=1000 >"$WORK/app.log" 2>&1 &
APP_PID=$!

BASE_URL=
for ((i = 0; i < STARTUP_TIMEOUT_SECONDS * 10; i++)); do
  kill -0 "$APP_PID" 2>/dev/null || fail "the sample exited during start-up"
  BASE_URL=$(sed -n 's/^Listening on \(http:\/\/127\.0\.0\.1:[0-9]*\)$/\1/p' "$WORK/app.log" | head -n 1)
  # Readiness is asked of /metrics, not /hello, so that no /hello request is counted but ab's.
  if [[ -n $BASE_URL ]] && curl -sf --max-time 2 -o /dev/null "$BASE_URL/metrics"; then
    break
  fi
  BASE_URL=
  sleep 0.1
done
[[ -n $BASE_URL ]] || fail "the sample did not answer within $STARTUP_TIMEOUT_SECONDS s"
echo "e2e: sample listening on $BASE_URL (pid $APP_PID)"

echo "e2e: building samples/Worker (Release)"
dotnet build samples/Worker -c Release -nologo -v quiet -clp:ErrorsOnly >"$WORK/build-worker.log" 2>&1 || {
  cat "$WORK/build-worker.log" >&2
  fail "worker build failed"
}
worker_port=$(free_port)
WORKER_URL="https://127.0.0.1:$worker_port"
WORKER_STARTED=$(date +%s)
dotnet samples/Worker/bin/Release/net10.0/ScalableMetrics.Samples.Worker.dll --ScalableMetrics:ScrapeListener:Port="$worker_port" \
  --ScalableMetrics:Registry:Views:0:Instrument=worker.item.number --ScalableMetrics:Registry:Views:0:ExemplarFilter=AlwaysOn \
  --ScalableMetrics:ScrapeListener:WebConfigFile="$WORK/tls/web-config.yml" \
  --OTEL_EXPORTER_OTLP_CERTIFICATE="$WORK/tls/ca.pem" --OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE="$WORK/tls/client.pem" \
  --OTEL_EXPORTER_OTLP_CLIENT_KEY="$WORK/tls/client.key" \
  --Worker:Items="$WORKER_ITEMS" --Worker:StartWhenFileExists="$WORK/worker.start" \
  --OTEL_EXPORTER_OTLP_ENDPOINT="$WORKER_OTLP_URL" --OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=delta \
  --OTEL_EXPORTER_OTLP_COMPRESSION=gzip --OTEL_METRIC_EXPORT_INTERVAL=1000 >"$WORK/worker.log" 2>&1 &
WORKER_PID=$!
for ((i = 0; i < STARTUP_TIMEOUT_SECONDS * 10; i++)); do
  kill -0 "$WORKER_PID" 2>/dev/null || fail "the worker exited during start-up"
  curl -sf --max-time 2 -o /dev/null "${WORKER_CURL[@]}" "$WORKER_URL/metrics" && break
  sleep 0.1
done
curl -sf --max-time 2 -o /dev/null "${WORKER_CURL[@]}" "$WORKER_URL/metrics" || fail "the worker's scrape listener did not answer within $STARTUP_TIMEOUT_SECONDS s"
worker_404=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "${WORKER_CURL[@]}" "$WORKER_URL/nothing-here")
worker_405=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "${WORKER_CURL[@]}" -X POST --data '' "$WORKER_URL/metrics")
[[ $worker_404 == 404 && $worker_405 == 405 ]] || fail "the worker's listener answered $worker_404 to another path (expected 404), $worker_405 to a POST (expected 405)"
# Without credentials, 401 with a Basic challenge; trusting another CA, no handshake (curl's 60).
worker_401=$(curl -s --max-time 5 -o /dev/null -D "$WORK/worker-401.headers" -w '%{http_code}' --cacert "$WORK/tls/ca.pem" "$WORKER_URL/metrics")
[[ $worker_401 == 401 ]] && grep -qi '^WWW-Authenticate: Basic' "$WORK/worker-401.headers" \
  || fail "the worker's listener answered $worker_401 to a scrape without credentials (expected 401 with WWW-Authenticate: Basic)"
wrong_ca_status=0
curl -s --max-time 5 -o /dev/null --cacert "$WORK/tls/other-ca.pem" -H "Authorization: $WORKER_AUTHORIZATION" "$WORKER_URL/metrics" || wrong_ca_status=$?
((wrong_ca_status == 60)) || fail "a scrape trusting another CA ended with curl status $wrong_ca_status (expected 60, the certificate refused)"
echo "e2e: worker's scrape listener on $WORKER_URL/metrics (TLS, basic auth; 401 without credentials, another CA refused; pid $WORKER_PID), $WORKER_ITEMS items"

# Started in this shell, not in $( ), so that their pids stay in PROMETHEUS_PIDS for cleanup.
start_prometheus prometheus prometheus --enable-feature=exemplar-storage >"$WORK/prometheus.url"
PROMETHEUS_URL=$(<"$WORK/prometheus.url")
start_prometheus prometheus-native "$NATIVE_PROMETHEUS" --enable-feature=native-histograms,exemplar-storage >"$WORK/prometheus-native.url"
NATIVE_PROMETHEUS_URL=$(<"$WORK/prometheus-native.url")
start_victoriametrics prometheus >"$WORK/victoriametrics.url"
VICTORIAMETRICS_URL=$(<"$WORK/victoriametrics.url")
echo "e2e: victoria-metrics $(dpkg-query -W -f='${Version}' victoria-metrics 2>/dev/null) listening on $VICTORIAMETRICS_URL, scraping the same targets every 1 s"
echo "e2e: prometheus $(prometheus --version 2>&1 | head -n 1 | awk '{ print $3 }') (bookworm) listening on $PROMETHEUS_URL (OpenMetrics), prometheus $("$NATIVE_PROMETHEUS" --version 2>&1 | head -n 1 | awk '{ print $3 }') ($NATIVE_PROMETHEUS_SUITE) on $NATIVE_PROMETHEUS_URL (native histograms: protobuf), scraping every 1 s"
wait_for_first_scrape "$PROMETHEUS_URL"
wait_for_first_scrape "$NATIVE_PROMETHEUS_URL" 'histogram_count(worker_item_number{job="worker"}) == 0'
touch "$WORK/worker.start"

curl -sf -o "$WORK/before.prom" "$BASE_URL/metrics" || fail "scrape before the load failed"
before=$(hello_count "$WORK/before.prom")
((before == 0)) || fail "/hello was counted $before times before the load"

scrape_loop &
SCRAPER_PID=$!
python3 scripts/e2e-concurrent-scrapers.py "$BASE_URL/metrics" "$WORK/ab.done" >"$WORK/concurrent.txt" 2>&1 &
CONCURRENT_PID=$!
SSL_CERT_FILE="$WORK/tls/ca.pem" SCRAPE_AUTHORIZATION="$WORKER_AUTHORIZATION" \
  python3 scripts/e2e-concurrent-scrapers.py "$WORKER_URL/metrics" "$WORK/ab.done" >"$WORK/concurrent-worker.txt" 2>&1 &
WORKER_CONCURRENT_PID=$!

echo "e2e: ab -n $REQUESTS -c $CONCURRENCY -k -H 'traceparent: $TRACEPARENT' $BASE_URL/hello"
ab_status=0
ab -n "$REQUESTS" -c "$CONCURRENCY" -k -q -H "traceparent: $TRACEPARENT" "$BASE_URL/hello" >"$WORK/ab.txt" 2>&1 || ab_status=$?
touch "$WORK/ab.done"

# The count is recorded when a response starts, before its first byte is sent: a scrape made
# after ab has read every response must already hold them all, with no waiting.
curl -sf -o "$WORK/final.prom" "$BASE_URL/metrics" || fail "scrape after the load failed"
counted=$(hello_count "$WORK/final.prom")
wait "$SCRAPER_PID"
SCRAPER_PID=
concurrent_status=0
wait "$CONCURRENT_PID" || concurrent_status=$?
CONCURRENT_PID=
worker_concurrent_status=0
wait "$WORKER_CONCURRENT_PID" || worker_concurrent_status=$?
WORKER_CONCURRENT_PID=

cat "$WORK/ab.txt"
((ab_status == 0)) || fail "ab exited with status $ab_status"
completed=$(awk '/^Complete requests:/ { print $3 }' "$WORK/ab.txt")
failed=$(awk '/^Failed requests:/ { print $3 }' "$WORK/ab.txt")
non2xx=$(awk '/^Non-2xx responses:/ { print $3 }' "$WORK/ab.txt")
[[ -n $completed && -n $failed ]] || fail "could not read ab's report"

echo "e2e: checking the final scrape with promtool"
promtool_status=0
promtool_output=$(promtool check metrics <"$WORK/final.prom" 2>&1) || promtool_status=$?
promtool_unaccepted=$(printf '%s\n' "$promtool_output" | awk -v accepted="$ACCEPTED_LINT_FAMILIES" 'NF && index(accepted, " " $1 " ") == 0')
promtool_accepted=$(printf '%s\n' "$promtool_output" | awk -v accepted="$ACCEPTED_LINT_FAMILIES" 'NF && index(accepted, " " $1 " ") > 0 { print $1 }' | tr '\n' ' ')
if ((promtool_status == 3)) && [[ -z $promtool_unaccepted ]]; then
  promtool_status=0
fi
if ((promtool_status == 0)); then
  promtool_verdict="OK${promtool_accepted:+ (lint accepted on names the runtime gives: $promtool_accepted)}"
else
  promtool_verdict="FAILED (exit $promtool_status): $promtool_output"
fi

echo "e2e: checking the values Prometheus stored"
prometheus_status=0
python3 scripts/e2e-check-prometheus.py "$PROMETHEUS_URL" ScalableMetrics "$counted" >"$WORK/prometheus-check.txt" 2>&1 || prometheus_status=$?
prometheus_checks=$(grep -c '^ok' "$WORK/prometheus-check.txt" || true)
prometheus_failures=$(grep -c '^FAIL' "$WORK/prometheus-check.txt" || true)
worker_status=0
python3 scripts/e2e-check-worker.py "$PROMETHEUS_URL" ScalableMetrics "$WORKER_ITEMS" >"$WORK/worker-check.txt" 2>&1 || worker_status=$?
exemplar_status=0
{
  python3 scripts/e2e-check-exemplars.py "$PROMETHEUS_URL" "$TRACE_ID" || exemplar_status=$?
  python3 scripts/e2e-check-exemplars.py "$NATIVE_PROMETHEUS_URL" "$TRACE_ID" || exemplar_status=$?
} >"$WORK/exemplar-check.txt" 2>&1
echo "e2e: checking the values the native-histograms Prometheus (protobuf) stored"
native_status=0
{
  python3 scripts/e2e-check-prometheus.py "$NATIVE_PROMETHEUS_URL" ScalableMetrics "$counted" || native_status=$?
  python3 scripts/e2e-check-worker.py "$NATIVE_PROMETHEUS_URL" ScalableMetrics "$WORKER_ITEMS" || native_status=$?
  python3 scripts/e2e-check-native.py "$NATIVE_PROMETHEUS_URL" ScalableMetrics "$WORKER_ITEMS" || native_status=$?
  SSL_CERT_FILE="$WORK/tls/ca.pem" SCRAPE_AUTHORIZATION="$WORKER_AUTHORIZATION" \
    python3 scripts/e2e-check-classic.py "$PROMETHEUS_URL" "$WORKER_URL/metrics" ScalableMetrics "$WORKER_ITEMS" || native_status=$?
  SSL_CERT_FILE="$WORK/tls/ca.pem" SCRAPE_AUTHORIZATION="$WORKER_AUTHORIZATION" \
    "$DEBIAN_PYTHON" scripts/e2e-check-native-exemplars.py "$NATIVE_PROMETHEUS_URL" "$WORKER_URL/metrics" ScalableMetrics "$WORKER_ITEMS" \
    "$WORK/prometheus-py" "$WORKER_STARTED" || native_status=$?
} >"$WORK/native-check.txt" 2>&1

echo "e2e: checking the values VictoriaMetrics stored, and the OpenMetrics bodies with a strict parser"
victoriametrics_status=0
python3 scripts/e2e-check-victoriametrics.py "$VICTORIAMETRICS_URL" "$counted" "$WORKER_ITEMS" >"$WORK/victoriametrics-check.txt" 2>&1 || victoriametrics_status=$?
openmetrics_status=0
SSL_CERT_FILE="$WORK/tls/ca.pem" SCRAPE_AUTHORIZATION="$WORKER_AUTHORIZATION" \
  "$DEBIAN_PYTHON" scripts/e2e-check-openmetrics.py "$BASE_URL/metrics" "$WORKER_URL/metrics" >"$WORK/openmetrics-check.txt" 2>&1 || openmetrics_status=$?

echo "e2e: dotnet-counters $DOTNET_COUNTERS_VERSION reading the registry's meter from the sample"
counters_status=0
{
  [[ -x $WORK/dotnet-tools/dotnet-counters ]] || dotnet tool install --tool-path "$WORK/dotnet-tools" dotnet-counters --version "$DOTNET_COUNTERS_VERSION" >"$WORK/dotnet-counters-install.log" 2>&1
  # Requests to /metrics while it listens (not /hello, whose counts the OTLP checks below hold exact).
  # Only the two instruments, and room for more series than the tool's default 1,000: the awkward
  # overflow counter alone has 2,001, which would crowd the others out.
  (for ((i = 0; i < 60; i++)); do curl -s -o /dev/null --max-time 2 "$BASE_URL/metrics" || true; sleep 0.1; done) &
  load_pid=$!
  timeout 60 "$WORK/dotnet-tools/dotnet-counters" collect -p "$APP_PID" --counters 'ScalableMetrics[webapi.requests,webapi.request.duration]' \
    --maxTimeSeries 10000 --refresh-interval 1 \
    --duration 00:00:00:06 --format json -o "$WORK/counters.json" >"$WORK/dotnet-counters.log" 2>&1
  wait "$load_pid"
  python3 scripts/e2e-check-counters.py "$WORK/counters.json" ScalableMetrics
} >"$WORK/counters-check.txt" 2>&1 || counters_status=$?

echo "e2e: stopping the sample and the worker (final OTLP exports), checking what the OTLP receivers stored"
stop_gracefully "$APP_PID" "the sample"
APP_PID=
stop_gracefully "$WORKER_PID" "the worker"
WORKER_PID=
otlp_status=0
"$DEBIAN_PYTHON" scripts/e2e-check-otlp.py "$WORK/otlp-py" "$WORK/otlp-sample" "$WORK/otlp-worker" "$counted" "$WORKER_ITEMS" >"$WORK/otlp-check.txt" 2>&1 || otlp_status=$?

scrapes=$(wc -l <"$WORK/counts" 2>/dev/null || echo 0)
last_during_load=$(tail -n 1 "$WORK/counts" 2>/dev/null || echo 0)

echo
echo "requests completed (ab): $completed"
echo "requests failed (ab):    $failed"
echo "requests counted:        $counted"
echo "scrapes taken:           $scrapes during the load (last saw $last_during_load), all non-decreasing: $([[ -s $WORK/scrape.errors ]] && echo no || echo yes)"
echo "concurrent scrapers:     $(head -n 1 "$WORK/concurrent.txt")"
echo "concurrent scrapers of the worker (TLS, basic auth): $(head -n 1 "$WORK/concurrent-worker.txt")"
echo "promtool check metrics:  $promtool_verdict"
echo "prometheus (real server): $prometheus_checks values exact, $prometheus_failures wrong"
echo "worker (standalone listener, job worker): $(grep -c '^ok' "$WORK/worker-check.txt" || true) checks ok, $(grep -c '^FAIL' "$WORK/worker-check.txt" || true) failed"
echo "prometheus with native histograms (protobuf scrapes): $(grep -c '^ok' "$WORK/native-check.txt" || true) checks ok, $(grep -c '^FAIL' "$WORK/native-check.txt" || true) failed"
echo "exemplars (both servers): $(grep -c '^ok' "$WORK/exemplar-check.txt" || true) checks ok, $(grep -c '^FAIL' "$WORK/exemplar-check.txt" || true) failed"
echo "victoriametrics (second scraper): $(grep -c '^ok' "$WORK/victoriametrics-check.txt" || true) checks ok, $(grep -c '^FAIL' "$WORK/victoriametrics-check.txt" || true) failed"
echo "strict OpenMetrics parser: $(grep -c '^ok' "$WORK/openmetrics-check.txt" || true) bodies valid, $(grep -c '^FAIL' "$WORK/openmetrics-check.txt" || true) rejected"
echo "dotnet-counters (registry counter and histogram): $(grep -c '^ok' "$WORK/counters-check.txt" || true) checks ok, $(grep -c '^FAIL' "$WORK/counters-check.txt" || true) failed"
echo "OTLP (sample gRPC cumulative, worker HTTP delta+gzip over mutual TLS): $(grep -c '^ok' "$WORK/otlp-check.txt" || true) checks ok, $(grep -c '^FAIL' "$WORK/otlp-check.txt" || true) failed"
echo
cat "$WORK/prometheus-check.txt"
cat "$WORK/worker-check.txt"
echo "-- the same, the native histogram, and its classic buckets in the same protobuf message:"
cat "$WORK/native-check.txt"
echo "-- exemplars, OpenMetrics server then protobuf server:"
cat "$WORK/exemplar-check.txt"
echo "-- victoriametrics:"
cat "$WORK/victoriametrics-check.txt"
echo "-- strict OpenMetrics parser:"
cat "$WORK/openmetrics-check.txt"
echo "-- dotnet-counters:"
cat "$WORK/counters-check.txt"
echo "-- OTLP receivers:"
cat "$WORK/otlp-check.txt"
echo
grep -E '^(# (HELP|TYPE) )?(webapi_|http_server_request_duration_seconds_count|dotnet_gc_collections|dotnet_thread_pool_thread_count)' "$WORK/final.prom"
echo

[[ ! -s $WORK/scrape.errors ]] || fail "scrapes during the load: $(head -n 5 "$WORK/scrape.errors" | tr '\n' ';')"
((scrapes > 0)) || fail "no scrape succeeded during the load"
((concurrent_status == 0)) || fail "concurrent scrapers: $(tr '\n' ';' <"$WORK/concurrent.txt" | head -c 2000)"
((worker_concurrent_status == 0)) || fail "concurrent scrapers of the worker: $(tr '\n' ';' <"$WORK/concurrent-worker.txt" | head -c 2000)"
((failed == 0)) || fail "ab reported $failed failed requests"
[[ -z $non2xx || $non2xx == 0 ]] || fail "ab reported $non2xx non-2xx responses"
((completed == REQUESTS)) || fail "ab completed $completed of $REQUESTS requests"
((counted == completed)) || fail "counted $counted requests, ab completed $completed"
((last_during_load <= counted)) || fail "a scrape during the load saw $last_during_load, more than the final $counted"
((promtool_status == 0)) || fail "promtool rejected the scrape"
((prometheus_status == 0)) || fail "Prometheus did not store the exact values (see above)"
((worker_status == 0)) || fail "Prometheus did not store the worker's exact values (see above)"
((exemplar_status == 0)) || fail "exemplars were not stored as expected (see above)"
((victoriametrics_status == 0)) || fail "VictoriaMetrics did not store the exact values (see above)"
((openmetrics_status == 0)) || fail "the strict OpenMetrics parser rejected a body (see above)"
((native_status == 0)) || fail "the native-histograms Prometheus did not store the exact values, the quantile was off, the protobuf message's classic buckets were not those stored, or its native exemplars were wrong (see above)"
((counters_status == 0)) || fail "dotnet-counters did not read the registry's counter and histogram (see above)"
((otlp_status == 0)) || fail "the OTLP receivers did not get the exact values (see above)"
# A real OTLP backend that reads the data (the Aspire dashboard), after the checks above.
bash scripts/e2e-aspire.sh || fail "the Aspire dashboard did not read back what the samples sent (see above)"
echo "e2e: PASS"
