#!/bin/sh
# `make` for a bare Debian 12 machine: installs make itself if missing
# (apt-get, with sudo when not root), then runs make with the arguments.
#   ./mk demo    ./mk test
set -e
cd "$(dirname "$0")"
if ! command -v make >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends make
fi
exec make "$@"
