#!/usr/bin/env bash
# Builds tls_add.c once per x86-64 TLS access model and compares, on one thread, its per-thread
# add with a shared lock add (see perf/README.md). x86-64 Linux; installs gcc and binutils with
# apt-get where they are missing.
#
#   perf/TlsModels/run.sh    # builds into a temporary folder, prints every repeat and the medians
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

missing=()
command -v gcc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
command -v objdump >/dev/null 2>&1 || missing+=(binutils)
bash "$here/../../scripts/install-packages.sh" "${missing[@]}"

build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT

gcc -O2 -fPIC -shared -ftls-model=global-dynamic -o "$build/general-dynamic.so" "$here/tls_add.c"
gcc -O2 -fPIC -shared -mtls-dialect=gnu2 -o "$build/tls-descriptor.so" "$here/tls_add.c"
gcc -O2 -fPIC -shared -ftls-model=initial-exec -o "$build/initial-exec.so" "$here/tls_add.c"
gcc -O2 -o "$build/compare" "$here/compare.c" -ldl

# The per-thread add as each model compiles it.
for model in general-dynamic tls-descriptor initial-exec; do
  echo "== $model: add_per_thread"
  objdump -d --no-show-raw-insn "$build/$model.so" | sed -n '/<add_per_thread>:/,/^$/p'
done

cd "$build"
./compare ./general-dynamic.so ./tls-descriptor.so ./initial-exec.so
