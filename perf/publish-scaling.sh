#!/usr/bin/env bash
# Publishes the scaling harness self-contained (the .NET runtime included) for linux-x64, into
# one git-ignored folder, packs it into a tar.gz, and checks that the published binary runs.
# Copy the tar.gz to a machine without the .NET SDK and run it there: see perf/README.md.
#
#   perf/publish-scaling.sh            # trimmed (the default)
#   TRIM=false perf/publish-scaling.sh # untrimmed, if trimming ever breaks a dependency
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rid="linux-x64"
name="scaling-$rid"
out="$root/publish/$name"
trim="${TRIM:-true}"

rm -rf "$out" "$root/publish/$name.tar.gz"
dotnet publish "$root/perf/Scaling/Scaling.csproj" \
  --configuration Release \
  --runtime "$rid" \
  --self-contained true \
  --output "$out" \
  -p:PublishTrimmed="$trim" \
  -p:DebugType=none \
  -p:SatelliteResourceLanguages=en

tar -C "$root/publish" -czf "$root/publish/$name.tar.gz" "$name"

# The quick mode checks every implementation's total (exit 2 on a mismatch), not speed.
"$out/ScalableMetrics.Scaling" --threads 1,2 --seconds 0.2 --repeat 1

echo
echo "folder:  $out ($(du -sh "$out" | cut -f1))"
echo "archive: $root/publish/$name.tar.gz ($(du -h "$root/publish/$name.tar.gz" | cut -f1))"
