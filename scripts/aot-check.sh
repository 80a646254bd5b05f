#!/usr/bin/env bash
# Native AOT check of samples/Worker, run from the repository root (and by .ci/run):
#   bash scripts/aot-check.sh
# Publishes the worker with Native AOT (PublishAot is set in its csproj; the SDK restores
# Microsoft.DotNet.ILCompiler and its linux-x64 runtime package) into artifacts/aot/worker
# (git-ignored), and fails if the publish fails or prints any warning: trim and AOT warnings
# included, ILCompiler's among them. Then runs the native binary with its standalone scrape
# listener on 127.0.0.1 and a free port, doing exactly $ITEMS items; waits until /metrics answers
# and the counter reaches $ITEMS; scrapes /metrics with curl and checks the worker's families
# (the counter worker_items_total, the histogram worker_item_steps with cumulative buckets ending
# in le="+Inf" equal to its _count, the exponential histogram worker_item_number with its exact
# count and sum), each series exact; checks from the write path the host logs at start that the
# registry took the restartable one (WritePath.RestartableSequence: Linux x86-64, glibc 2.35 or
# later); then sends it SIGTERM and fails unless it exits 0 within $STOP_TIMEOUT_SECONDS. Runs it
# again with a web-config.yml (a self-signed certificate, a bcrypt user): the scrape over TLS must
# answer 401 without credentials and the scrape with them, so that YamlDotNet and BCrypt.Net-Next
# are checked in the native binary too.
# Needs a C compiler to link (clang, or gcc, which ILCompiler falls back to), curl, python3 (to
# pick a free port), openssl and htpasswd: installs clang, curl, python3, openssl or apache2-utils
# from Debian's packages only when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

ITEMS=100000
STARTUP_TIMEOUT_SECONDS=60
WORK_TIMEOUT_SECONDS=60
STOP_TIMEOUT_SECONDS=30
PUBLISH_DIR=artifacts/aot/worker
BINARY="$PUBLISH_DIR/ScalableMetrics.Samples.Worker"
SERIES_LABELS='{otel_scope_name="ScalableMetrics",work_kind="collatz"}'

missing=()
if ! command -v clang >/dev/null && ! command -v gcc >/dev/null; then
  missing+=(clang)
fi
if ! command -v curl >/dev/null; then
  missing+=(curl)
fi
if ! command -v python3 >/dev/null; then
  missing+=(python3)
fi
if ! command -v openssl >/dev/null; then
  missing+=(openssl)
fi
if ! command -v htpasswd >/dev/null; then
  missing+=(apache2-utils)
fi
bash scripts/install-packages.sh "${missing[@]+"${missing[@]}"}"

work=$(mktemp -d)
worker_pid=""
# Whether the process is alive: kill -0 also succeeds on a child that exited and is not yet reaped.
is_running() {
  [[ -r /proc/$1/stat ]] && [[ $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) != Z ]]
}
cleanup() {
  if [[ -n $worker_pid ]] && is_running "$worker_pid"; then
    kill -KILL "$worker_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  if [[ -f $work/worker.log ]]; then
    echo "--- worker output" >&2
    tail -n 40 "$work/worker.log" >&2
  fi
  exit 1
}

echo "== publishing samples/Worker with Native AOT into $PUBLISH_DIR"
rm -rf "$PUBLISH_DIR"
# The same output folder for every project would mix the libraries' outputs with the worker's: -o
# applies to the worker only when publishing one project, which this is.
if ! dotnet publish samples/Worker/Worker.csproj -c Release -r linux-x64 -o "$PUBLISH_DIR" >"$work/publish.log" 2>&1; then
  cat "$work/publish.log" >&2
  fail "dotnet publish failed"
fi
# MSBuild, the analyzers and ILCompiler all write "warning CODE:"; ILCompiler's own without a code
# are lines containing ": warning".
if grep -Eiq '(^|[: ])warning( [A-Z]+[0-9]+)?:' "$work/publish.log"; then
  grep -Ei '(^|[: ])warning( [A-Z]+[0-9]+)?:' "$work/publish.log" | sort -u >&2
  fail "the AOT publish printed warnings"
fi
[[ -x $BINARY ]] || fail "no native binary at $BINARY"
if [[ -e "$PUBLISH_DIR/ScalableMetrics.Samples.Worker.dll" ]]; then
  fail "$PUBLISH_DIR holds a managed ScalableMetrics.Samples.Worker.dll: not a Native AOT publish"
fi
echo "published: $(du -h "$BINARY" | cut -f1) native binary, no warning"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
url="http://127.0.0.1:$port/metrics"
echo "== running the native worker: $ITEMS items, scrape at $url"
"$BINARY" "--ScalableMetrics:ScrapeListener:Host=127.0.0.1" "--ScalableMetrics:ScrapeListener:Port=$port" \
  "--Worker:Items=$ITEMS" >"$work/worker.log" 2>&1 &
worker_pid=$!

deadline=$((SECONDS + STARTUP_TIMEOUT_SECONDS))
until curl -fsS -o /dev/null "$url" 2>/dev/null; do
  is_running "$worker_pid" || fail "the worker exited before its listener answered"
  ((SECONDS < deadline)) || fail "no answer from $url within $STARTUP_TIMEOUT_SECONDS s"
  sleep 0.2
done

# The tasks run on their own threads: scrape until the counter holds every item.
expected_items="worker_items_total$SERIES_LABELS $ITEMS"
deadline=$((SECONDS + WORK_TIMEOUT_SECONDS))
while :; do
  curl -fsS "$url" >"$work/scrape.txt" || fail "scrape of $url failed"
  grep -qxF "$expected_items" "$work/scrape.txt" && break
  ((SECONDS < deadline)) || fail "worker_items_total did not reach $ITEMS within $WORK_TIMEOUT_SECONDS s: $(grep '^worker_items_total' "$work/scrape.txt" || echo none)"
  sleep 0.2
done

echo "== checking the scrape"
problems=()
expect_line() {
  grep -qxF "$1" "$work/scrape.txt" || problems+=("missing: $1")
}
expect_line "# TYPE worker_items_total counter"
expect_line "$expected_items"
expect_line "# TYPE worker_item_steps histogram"
expect_line "worker_item_steps_count$SERIES_LABELS $ITEMS"
expect_line "worker_item_steps_bucket${SERIES_LABELS%\}},le=\"+Inf\"} $ITEMS"
expect_line "# TYPE worker_item_number histogram"
expect_line "worker_item_number_count$SERIES_LABELS $ITEMS"
# Item numbers 1..ITEMS: their sum is ITEMS (ITEMS + 1) / 2, exact in a double.
sum=$(awk -v name="worker_item_number_sum$SERIES_LABELS" '$1 == name { print $2 }' "$work/scrape.txt")
awk -v sum="$sum" -v items="$ITEMS" 'BEGIN { exit !(sum != "" && sum + 0 == items * (items + 1) / 2) }' \
  || problems+=("worker_item_number_sum is '$sum', expected $((ITEMS * (ITEMS + 1) / 2))")
# The step histogram's buckets: at least two, cumulative (never decreasing), the last le="+Inf".
buckets=$(awk -v prefix="worker_item_steps_bucket${SERIES_LABELS%\}},le=" 'index($1, prefix) == 1 { print $2 }' "$work/scrape.txt")
awk 'NR > 1 && $1 < previous { bad = 1 } { previous = $1; n++ } END { exit !(n >= 2 && !bad) }' <<<"$buckets" \
  || problems+=("worker_item_steps buckets not cumulative: $(echo "$buckets" | tr '\n' ' ')")
if ((${#problems[@]} > 0)); then
  printf '  %s\n' "${problems[@]}" >&2
  fail "the scrape of the native worker is not what the worker did"
fi
echo "counter, histogram and exponential histogram exact: $ITEMS items"

echo "== checking the write path"
# The host logs each registry's write path and why at start (event 41, "ScalableMetrics write
# path: ..."); every line naming a write path must name the restartable one.
write_path_lines=$(grep -i 'write path' "$work/worker.log" || true)
grep -q 'ScalableMetrics write path:' <<<"$write_path_lines" || fail "the worker logged no write path"
if ! grep -q 'RestartableSequence' <<<"$write_path_lines" || grep -Eq 'InterlockedProcessorId|PerThread' <<<"$write_path_lines"; then
  echo "$write_path_lines" >&2
  fail "the native worker did not take the restartable write path"
fi
echo "$write_path_lines" | sed 's/^ */  /'

echo "== stopping the worker with SIGTERM"
kill -TERM "$worker_pid"
deadline=$((SECONDS + STOP_TIMEOUT_SECONDS))
while is_running "$worker_pid"; do
  ((SECONDS < deadline)) || fail "the worker did not exit within $STOP_TIMEOUT_SECONDS s of SIGTERM"
  sleep 0.2
done
status=0
wait "$worker_pid" || status=$?
worker_pid=""
((status == 0)) || fail "the worker exited with status $status after SIGTERM, expected 0"
echo "exited 0 after SIGTERM"

echo "== the native worker's listener with TLS and basic auth (a web-config.yml)"
# YamlDotNet reads the file and BCrypt.Net-Next checks the password in the native binary too.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" -keyout "$work/tls.key" -out "$work/tls.pem" 2>/dev/null \
  || fail "openssl could not make the listener's certificate"
printf 'tls_server_config:\n  cert_file: tls.pem\n  key_file: tls.key\nbasic_auth_users:\n  prometheus: %s\n' \
  "$(htpasswd -nbBC 10 prometheus aot-secret | cut -d: -f2)" >"$work/web-config.yml"
tls_url="https://127.0.0.1:$port/metrics"
"$BINARY" "--ScalableMetrics:ScrapeListener:Port=$port" "--ScalableMetrics:ScrapeListener:WebConfigFile=$work/web-config.yml" \
  "--Worker:Items=10" >"$work/worker.log" 2>&1 &
worker_pid=$!
deadline=$((SECONDS + STARTUP_TIMEOUT_SECONDS))
until [[ $(curl -s --cacert "$work/tls.pem" -o /dev/null -w '%{http_code}' "$tls_url" 2>/dev/null) == 401 ]]; do
  is_running "$worker_pid" || fail "the worker with a web-config.yml exited before its listener answered 401"
  ((SECONDS < deadline)) || fail "no 401 from $tls_url without credentials within $STARTUP_TIMEOUT_SECONDS s"
  sleep 0.2
done
curl -fsS --cacert "$work/tls.pem" -u prometheus:aot-secret "$tls_url" >"$work/scrape-tls.txt" \
  || fail "the scrape of $tls_url with the user's credentials failed"
grep -q '^worker_items_total' "$work/scrape-tls.txt" || fail "the scrape over TLS holds no worker_items_total"
kill -TERM "$worker_pid"
status=0
wait "$worker_pid" || status=$?
worker_pid=""
((status == 0)) || fail "the worker with a web-config.yml exited with status $status after SIGTERM, expected 0"
echo "401 without credentials, the scrape with them, over TLS"
echo "AOT check passed"
