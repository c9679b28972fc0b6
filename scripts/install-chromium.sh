#!/usr/bin/env bash
# Installs Debian's Chromium (headless screenshots of the docs). Does nothing when it is there already.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  exit 0
fi

run_as_root=()
if [ "$(id -u)" -ne 0 ]; then
  run_as_root=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
"${run_as_root[@]}" apt-get update
"${run_as_root[@]}" apt-get install -y chromium
