#!/usr/bin/env bash
# Installs what the kernel algorithms (bpf/) and the namespace test bed (testbed) need,
# from Debian's packages. Run as root.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
    clang llvm libbpf-dev bpftool make gcc libc6-dev \
    iperf3 iproute2 iptables ethtool tcpdump
