#!/usr/bin/env bash
# Installs Debian packages with apt-get (through sudo unless run as root), without recommended
# packages and without prompts, for the scripts that install what they use themselves
# (scripts/e2e.sh, perf/TlsModels/run.sh). Does nothing when given no package.
#   bash scripts/install-packages.sh PACKAGE...
set -euo pipefail

if (($# == 0)); then
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  sudo=(sudo)
fi

echo "installing $*"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null
