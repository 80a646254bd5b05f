#!/usr/bin/env bash
# End-to-end against a real OTLP backend that reads the data: the .NET Aspire dashboard, pinned
# (Aspire.Dashboard.Sdk.linux-x64 13.6.5, restored here from the package source; its store
# layout is internal, so the version is pinned on purpose: ../shared/otlp-backend-and-dotnet-counters.md).
# The WebApi sample pushes to it over OTLP/gRPC and the Worker sample over OTLP/HTTP, both
# cumulative, every second, and once more on a graceful stop; then scripts/e2e-check-aspire.py
# reads the dashboard's SQLite store: the instrument names, units and bucket bounds must be those
# of each sample's own OpenMetrics scrape, and ASP.NET Core's request count for /hello the number
# of requests sent. Exact delta sums and wire encodings stay with the Python receivers of
# scripts/e2e.sh. Runs alone (bash scripts/e2e-aspire.sh) or from scripts/e2e.sh; needs the
# .NET SDK, curl and python3 (its sqlite3 module).
set -euo pipefail
cd "$(dirname "$0")/.."

ASPIRE_VERSION=13.6.5
HELLO_REQUESTS=${HELLO_REQUESTS:-300}
STARTUP_TIMEOUT_SECONDS=${STARTUP_TIMEOUT_SECONDS:-120}
WORK=$(mktemp -d)
PIDS=()

fail() {
  echo "e2e-aspire: FAIL: $*" >&2
  exit 1
}

cleanup() {
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Waits until $2 answers (curl), while process $1 lives.
wait_for() {
  local pid=$1 url=$2 name=$3
  for ((i = 0; i < STARTUP_TIMEOUT_SECONDS * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || fail "$name exited during start-up"
    curl -sf --max-time 2 -o /dev/null "$url" && return 0
    sleep 0.1
  done
  fail "$name did not answer $url within $STARTUP_TIMEOUT_SECONDS s"
}

# SIGTERM, as a service manager stops it: the host's graceful stop sends the final OTLP export.
stop_gracefully() {
  local pid=$1 name=$2 status=0
  kill -TERM "$pid" 2>/dev/null || fail "$name had exited before its stop"
  wait "$pid" || status=$?
  ((status == 0)) || fail "$name exited with status $status on SIGTERM"
}

# Two scrapes: the second holds the first's duration (the self-metrics), as an export does.
scrape_openmetrics() {
  curl -sf --max-time 10 -o /dev/null -H 'Accept: application/openmetrics-text;version=1.0.0' "$1"
  curl -sf --max-time 10 -o "$2" -H 'Accept: application/openmetrics-text;version=1.0.0' "$1"
}

echo "e2e-aspire: restoring Aspire.Dashboard.Sdk.linux-x64 $ASPIRE_VERSION"
mkdir -p "$WORK/restore"
cat >"$WORK/restore/restore.csproj" <<EOF
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup>
  <ItemGroup><PackageDownload Include="Aspire.Dashboard.Sdk.linux-x64" Version="[$ASPIRE_VERSION]" /></ItemGroup>
</Project>
EOF
NUGET_PACKAGES="$WORK/packages" dotnet restore "$WORK/restore/restore.csproj" -v quiet >"$WORK/restore.log" 2>&1 || {
  cat "$WORK/restore.log" >&2
  fail "the dashboard package could not be restored"
}
DASHBOARD="$WORK/packages/aspire.dashboard.sdk.linux-x64/$ASPIRE_VERSION/tools/Aspire.Dashboard"
[[ -x $DASHBOARD ]] || fail "no executable $DASHBOARD in the package"

ui_port=$(free_port)
grpc_port=$(free_port)
http_port=$(free_port)
mkdir -p "$WORK/dashboard"
ASPNETCORE_URLS="http://127.0.0.1:$ui_port" \
  ASPIRE_DASHBOARD_OTLP_ENDPOINT_URL="http://127.0.0.1:$grpc_port" \
  ASPIRE_DASHBOARD_OTLP_HTTP_ENDPOINT_URL="http://127.0.0.1:$http_port" \
  DASHBOARD__OTLP__AUTHMODE=Unsecured DASHBOARD__FRONTEND__AUTHMODE=Unsecured \
  ASPIRE_DASHBOARD_UNSECURED_ALLOW_ANONYMOUS=true ASPIRE_DASHBOARD_PERSISTENCE_MODE=Run \
  ASPIRE_DASHBOARD_DATA_DIRECTORY="$WORK/dashboard" \
  "$DASHBOARD" >"$WORK/dashboard.log" 2>&1 &
DASHBOARD_PID=$!
PIDS+=("$DASHBOARD_PID")
wait_for "$DASHBOARD_PID" "http://127.0.0.1:$ui_port/health" "the dashboard"
echo "e2e-aspire: dashboard $ASPIRE_VERSION up (OTLP/gRPC 127.0.0.1:$grpc_port, OTLP/HTTP 127.0.0.1:$http_port)"

for sample in WebApi Worker; do
  dotnet build "samples/$sample" -c Release -nologo -v quiet -clp:ErrorsOnly >"$WORK/build-$sample.log" 2>&1 || {
    cat "$WORK/build-$sample.log" >&2
    fail "samples/$sample did not build"
  }
done

# The WebApi sample over OTLP/gRPC, cumulative: exactly HELLO_REQUESTS requests to /hello.
app_port=$(free_port)
dotnet samples/WebApi/bin/Release/net10.0/ScalableMetrics.Samples.WebApi.dll --urls "http://127.0.0.1:$app_port" \
  --OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$grpc_port" --OTEL_EXPORTER_OTLP_PROTOCOL=grpc \
  --OTEL_METRIC_EXPORT_INTERVAL=1000 >"$WORK/webapi.log" 2>&1 &
APP_PID=$!
PIDS+=("$APP_PID")
wait_for "$APP_PID" "http://127.0.0.1:$app_port/metrics" "the WebApi sample"
for ((i = 0; i < HELLO_REQUESTS; i++)); do
  curl -sf --max-time 10 -o /dev/null "http://127.0.0.1:$app_port/hello" || fail "request $i to /hello failed"
done
sleep 2
scrape_openmetrics "http://127.0.0.1:$app_port/metrics" "$WORK/webapi.om"
stop_gracefully "$APP_PID" "the WebApi sample"

# The Worker sample over OTLP/HTTP (protobuf), cumulative.
worker_port=$(free_port)
dotnet samples/Worker/bin/Release/net10.0/ScalableMetrics.Samples.Worker.dll --ScalableMetrics:ScrapeListener:Port="$worker_port" \
  --Worker:Items=20000 --OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$http_port" \
  --OTEL_METRIC_EXPORT_INTERVAL=1000 >"$WORK/worker.log" 2>&1 &
WORKER_PID=$!
PIDS+=("$WORKER_PID")
wait_for "$WORKER_PID" "http://127.0.0.1:$worker_port/metrics" "the Worker sample"
sleep 3
scrape_openmetrics "http://127.0.0.1:$worker_port/metrics" "$WORK/worker.om"
stop_gracefully "$WORKER_PID" "the Worker sample"

db=$(find "$WORK/dashboard" -name dashboard.db | head -n 1)
[[ -n $db ]] || fail "the dashboard wrote no store under $WORK/dashboard"
status=0
echo "-- WebApi (OTLP/gRPC, cumulative):"
python3 scripts/e2e-check-aspire.py "$db" ScalableMetrics.Samples.WebApi "$WORK/webapi.om" "$HELLO_REQUESTS" || status=1
echo "-- Worker (OTLP/HTTP, cumulative):"
python3 scripts/e2e-check-aspire.py "$db" ScalableMetrics.Samples.Worker "$WORK/worker.om" || status=1
((status == 0)) || fail "the dashboard did not read back what the samples sent (see above)"
echo "e2e-aspire: PASS"
