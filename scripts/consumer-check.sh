#!/usr/bin/env bash
# Consumer check of the packed packages, as a team outside this repository takes them:
#   bash scripts/consumer-check.sh [packages-folder]   (default: artifacts/packages)
# In a new temporary folder outside the repository (none of its Directory.Build.props, central
# package versions or project references apply there), creates a project with `dotnet new web`,
# adds ScalableMetrics.AspNetCore at the version the repository builds (Directory.Build.props)
# from the packed folder, the other packages it depends on coming from the same folder and the
# machine's own NuGet sources, replaces Program.cs with the README's getting-started (and one
# counter recorded once), builds it, runs it on a free loopback port, and fails unless
# GET /metrics answers with that counter's sample, value 1, and the project took no OpenTelemetry
# package. The restore uses a NuGet packages folder of its own (NUGET_PACKAGES), so a package of
# the same version cached by an earlier run can never stand in for the one just packed.
set -euo pipefail

# The endpoint's mapping method, the one name here that a rename of the public API changes.
MAP_ENDPOINT=MapScalableMetrics
PACKAGE=ScalableMetrics.AspNetCore
START_TIMEOUT_SECONDS=60

repo=$(cd "$(dirname "$0")/.." && pwd)
command -v curl > /dev/null 2>&1 || bash "$repo/scripts/install-packages.sh" curl
packages=$(cd "${1:-$repo/artifacts/packages}" && pwd)
version=$(dotnet msbuild "$repo/src/Metrics/Metrics.csproj" -getProperty:Version)
ls "$packages/$PACKAGE.$version.nupkg" > /dev/null

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
work=$(mktemp -d "${TMPDIR:-/tmp}/scalablemetrics-consumer.XXXXXX")
export NUGET_PACKAGES="$work/nuget-packages"
app_pid=
cleanup() {
  if [[ -n "$app_pid" ]]; then kill "$app_pid" 2> /dev/null || true; wait "$app_pid" 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "consumer check: $PACKAGE $version from $packages, in $work"
cd "$work"
dotnet new web --name Consumer --output Consumer > /dev/null
cd Consumer

# The packed folder beside the machine's sources (this file adds to the user's NuGet.Config).
cat > nuget.config <<EOF
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <add key="scalablemetrics-packed" value="$packages" />
  </packageSources>
</configuration>
EOF
dotnet add package "$PACKAGE" --version "$version"

# The README's getting-started, and a counter recorded once.
cat > Program.cs <<EOF
using ScalableMetrics;

var builder = WebApplication.CreateBuilder(args);
builder.Services.AddScalableMetrics(o => o.AddMeter("Microsoft.AspNetCore.Hosting"));
var app = builder.Build();
app.$MAP_ENDPOINT();
app.Services.GetRequiredService<MetricRegistry>().CreateCounter("consumer.checks").Add(1);
app.Run();
EOF
dotnet build -c Release --nologo -v quiet

# The AspNetCore package must not bring OpenTelemetry in.
if grep -q '"OpenTelemetry/' obj/project.assets.json; then
  echo "consumer check: $PACKAGE $version brought an OpenTelemetry package in" >&2
  exit 1
fi

# Port 0: the server picks a free port and logs it.
dotnet bin/Release/net10.0/Consumer.dll --urls http://127.0.0.1:0 > app.log 2>&1 &
app_pid=$!
url=
for _ in $(seq 1 $((START_TIMEOUT_SECONDS * 10))); do
  url=$(grep -oE 'Now listening on: http://127\.0\.0\.1:[0-9]+' app.log | head -n 1 | sed 's/^Now listening on: //') || true
  [[ -n "$url" ]] && break
  if ! kill -0 "$app_pid" 2> /dev/null; then cat app.log >&2; exit 1; fi
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "consumer check: the app did not start within $START_TIMEOUT_SECONDS s" >&2
  cat app.log >&2
  exit 1
fi

body=$(curl --silent --show-error --fail --max-time 30 "$url/metrics")
if ! grep -qE '^consumer_checks_total(\{[^}]*\})? 1$' <<< "$body"; then
  echo "consumer check: $url/metrics has no consumer_checks_total sample of value 1:" >&2
  echo "$body" >&2
  exit 1
fi
echo "consumer check: passed ($url/metrics: $(grep -E '^consumer_checks_total' <<< "$body"))"
