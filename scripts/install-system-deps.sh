#!/usr/bin/env bash
# System packages the tests need (Debian): tshark reads tcplab's pcap traces in the tests.
set -euo pipefail
need=()
command -v tshark >/dev/null 2>&1 || need+=(tshark)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing system packages: ${need[*]} (run as root or: sudo apt-get install ${need[*]})" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
