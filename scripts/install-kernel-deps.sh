#!/usr/bin/env bash
# Installs what the kernel algorithms (bpf/) and the namespace test bed (testbed) need,
# from Debian's packages. Run as root. Keep in step with PACKAGES in
# python/tcplab/testbed/available.py (the test bed names what is missing from that list).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
missing=0
for tool in clang llc bpftool make gcc chrt ip tc ss nstat iptables ethtool tcpdump ping; do
    command -v "$tool" >/dev/null 2>&1 || missing=1
done
[ -f /usr/include/bpf/bpf_helpers.h ] || missing=1
[ "$missing" -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "the kernel test bed needs clang, llvm, libbpf-dev, bpftool, iproute2, iptables, ethtool, tcpdump, iputils-ping (run as root)" >&2
    exit 1
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
    clang llvm libbpf-dev bpftool make gcc libc6-dev \
    iproute2 iptables ethtool tcpdump iputils-ping util-linux
