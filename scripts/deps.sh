#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian 12 packages sroce needs to build and test, if missing.
set -euo pipefail

pkgs=(
	gcc make bc pkg-config kmod cpio xz-utils zstd dwarves sparse
	linux-headers-amd64 linux-image-amd64
	qemu-system-x86 busybox-static
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev
	librdmacm1 librdmacm-dev rdmacm-utils perftest python3-pyverbs
	iproute2 iputils-ping tcpdump tshark ethtool procps clang-format
	python3-docutils nvme-cli
	clang libclang-rt-14-dev # tests/fuzz (libFuzzer)
	openmpi-bin libopenmpi-dev ucx-utils qperf # bench/mpi, t-ucx
	prometheus-node-exporter curl # t-monitor
	libfabric-bin # t-libfabric, bench/mpi
)
# `scripts/deps.sh sim` (make sim): plots of the cc simulator too.
[ "${1:-}" = sim ] && pkgs+=(gnuplot-nox)
# `scripts/deps.sh deb` (make deb, make check-deb): the package build.
[ "${1:-}" = deb ] &&
	pkgs+=(dpkg-dev debhelper dh-dkms dkms fakeroot rsync lintian)
# `scripts/deps.sh debug` (make check-debug): what building the debug
# kernel from Debian's source needs.
[ "${1:-}" = debug ] &&
	pkgs+=(linux-source-6.1 flex bison libelf-dev libssl-dev rsync)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]} (run as root to install)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# t-monitor runs its own node_exporter in the guest; the package's service
# would listen on *:9100 of this host.
if [[ " ${missing[*]} " == *" prometheus-node-exporter "* ]] &&
	command -v systemctl >/dev/null; then
	systemctl disable --now prometheus-node-exporter >/dev/null 2>&1 || true
fi
