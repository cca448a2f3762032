# SPDX-License-Identifier: GPL-2.0
#
# sroce: software RoCE v2.
#
#   make            build kernel/sroce.ko and provider/libsroce-rdmav34.so
#   make check      install missing packages, unit tests, guest integration tests
#   make check-debug the integration tests on a debug kernel (KASAN, lockdep,
#                   UBSAN, kmemleak, ...), built once from linux-source-6.1
#   make check-kernel the integration tests on Debian's newest 6.12 kernel
#                   (bookworm-backports, fetched into ~/.cache/sroce)
#   make check-multi sroce between two guests joined by a QEMU socket netdev
#                   (MULTI_PAIRS="6.1+6.1 6.12+6.12 6.1+6.12"; default 6.1+6.1)
#   make demo       install missing packages, boot a guest, show sroce at work
#   make bench      sroce next to rdma_rxe in one guest boot on veth pairs
#                   (perftest, kernel memory per QP and per device; the
#                   copy+CRC bound with SROCE_BENCH_MTU=9000, IB MTU 4096),
#                   then make bench-virtio
#   make bench-virtio  the same over two virtio-net pairs (a shorter matrix:
#                   WRITE/READ/SEND at 64 KiB and 1 MiB, 1 QP, latencies;
#                   Documentation/performance.rst "Over virtio-net")
#   make bench-profile  perf profiles of both in one guest boot
#                   (Documentation/performance.rst)
#   make bench-mpi  UCX, Open MPI (bench/mpi/coll) and qperf: sroce next to
#                   rdma_rxe in one guest boot
#   make bench-cc   congestion control under incast (none, dcqcn mlx/paper)
#   make sim        cc simulator (tools/ccsim): its tests (tests/sim), then
#                   the standard scenarios and the leaf-spine fabric's FCT
#                   runs into build/sim/
#   make fuzz       libFuzzer targets of kernel/proto, FUZZ_SECONDS (60) each
#   make style      checkpatch --strict and clang-format
#   make C=2        also run sparse over the kernel sources
#   make install    install module, provider, the libibverbs driver file,
#                   sroce-config and sroce-top
#   make deb        Debian packages (debian/) into build/deb/: sroce-dkms,
#                   ibverbs-providers-sroce
#   make check-deb  those packages installed, used, purged in a guest
#                   (CHECK_DEB_ARGS=6.12: on Debian's 6.12 kernel)
#   make soak       mixed traffic under injected faults for DURATION
#                   (seconds, or 2m / 1h; default 2m), tests/integration/soak.sh
#                   (make check runs it for 2 minutes as t-soak)

KVER ?= $(shell uname -r)
KDIR ?= $(firstword $(wildcard /lib/modules/$(KVER)/build) \
	$(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1))
export KDIR

PREFIX ?= /usr
LIBDIR ?= $(PREFIX)/lib/$(shell gcc -print-multiarch 2>/dev/null)
PROVIDER_DIR ?= $(LIBDIR)/libibverbs
DRIVER_D ?= /etc/libibverbs.d

.PHONY: all kernel provider unit check integration demo bench deps \
	style install uninstall clean help bench-cc bench-mpi sim check-debug \
	bench-profile bench-virtio \
	fuzz check-cc-fabric check-kernel deb check-deb check-multi soak

all: kernel provider

kernel:
	@test -n "$(KDIR)" || { echo "no kernel headers: set KDIR or run 'make deps'"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

provider:
	$(MAKE) -C provider

unit:
	$(MAKE) -C tests/unit run

deps:
	scripts/deps.sh

# check: unit tests on the host, then the integration tests in a guest.
check: deps
	$(MAKE) all
	$(MAKE) -C tests/datapath
	$(MAKE) -C tests/kmod
	$(MAKE) -C bench/mpi
	scripts/check.sh

# check-debug: the integration tests on the debug kernel (scripts/debug-kernel.sh
# builds it once and caches it in ~/.cache/sroce); CHECK_DEBUG_ARGS=--ci runs
# the subset CI runs, or name files: CHECK_DEBUG_ARGS="t-link t-resp".
check-debug: deps
	scripts/deps.sh debug
	$(MAKE) all
	$(MAKE) -C tests/datapath
	$(MAKE) -C bench/mpi
	scripts/check-debug.sh $(CHECK_DEBUG_ARGS)

# check-kernel: sroce built against, and the integration tests run on,
# Debian's newest kernel of KSERIES (scripts/fetch-kernel.sh fetches it once
# into ~/.cache/sroce/kernels without installing it); name files with
# CHECK_KERNEL_ARGS="t-link t-netdev", or CHECK_KERNEL_ARGS=--build-only.
KSERIES ?= 6.12
check-kernel: deps
	$(MAKE) all
	$(MAKE) -C tests/datapath
	$(MAKE) -C bench/mpi
	scripts/check-kernel.sh $(filter --build-only,$(CHECK_KERNEL_ARGS)) \
		$(KSERIES) $(filter-out --build-only,$(CHECK_KERNEL_ARGS))

# check-multi: tests/multi/run.sh, two guests per pair of kernels (minutes
# per pair, so not in make check); MULTI_PAIRS names them, KA+KB each.
MULTI_PAIRS ?=
check-multi: deps
	$(MAKE) all
	$(MAKE) -C tests/datapath
	$(MAKE) -C bench/mpi
	tests/multi/run.sh $(MULTI_PAIRS)

integration: all
	tests/integration/run.sh

demo: deps
	$(MAKE) all
	tests/vm/vm-run --timeout 600 -- tests/demo.sh

bench: deps
	$(MAKE) all
	$(MAKE) -C bench
	bench/run.sh
	$(MAKE) bench-virtio

bench-virtio: deps
	$(MAKE) all
	$(MAKE) -C bench
	SROCE_BENCH_NET=virtio \
	SROCE_BENCH_TOOLS="$${SROCE_BENCH_TOOLS:-ib_write_bw ib_read_bw ib_send_bw ib_send_lat ib_write_lat}" \
	SROCE_BENCH_SIZES="$${SROCE_BENCH_SIZES:-65536 1048576}" \
	SROCE_BENCH_QPS="$${SROCE_BENCH_QPS:-1}" bench/run.sh

bench-cc: deps
	$(MAKE) all
	bench/cc.sh

bench-profile: deps
	$(MAKE) all
	bench/profile.sh

bench-mpi: deps
	$(MAKE) all
	$(MAKE) -C bench/mpi
	bench/mpi/run.sh

# check-cc-fabric: congestion on untuned bottlenecks (issue 17; 5-10 min,
# too long for make check).
check-cc-fabric: deps
	$(MAKE) all
	SROCE_VM_TIMEOUT=1800 tests/integration/run.sh cc-fabric

# soak: soak.sh (RC, UD, rdma_cm and perftest traffic while links go
# down, packets are lost, MTUs change, processes are killed, devices and
# namespaces are deleted) for DURATION: 90, 90s, 2m or 1h.  make check
# runs the same for two minutes (tests/integration/t-soak.sh).
DURATION ?= 2m
soak: deps
	$(MAKE) all
	$(MAKE) -C tests/datapath
	@d='$(DURATION)'; \
	case $$d in \
	*h) s=$$(( $${d%h} * 3600 )) ;; \
	*m) s=$$(( $${d%m} * 60 )) ;; \
	*s) s=$${d%s} ;; \
	*) s=$$d ;; \
	esac; \
	test "$$s" -gt 0 2>/dev/null || { echo "soak: bad DURATION '$$d'"; exit 2; }; \
	SROCE_SOAK_SECONDS=$$s SROCE_TEST_TIMEOUT=$$((s + 600)) \
		SROCE_VM_TIMEOUT=$$((s + 900)) tests/integration/run.sh soak

# sim: the cc simulator's tests, then its standard scenarios, CSV and
# plots in build/sim/.
sim:
	scripts/deps.sh sim
	tests/sim/run.sh
	$(MAKE) -C tools/ccsim run

# fuzz: every parser and state machine of kernel/proto under libFuzzer
# (tests/fuzz); prints exec/s and executions, fails on a finding.
FUZZ_SECONDS ?= 60
fuzz:
	$(MAKE) -C tests/fuzz run FUZZ_SECONDS=$(FUZZ_SECONDS)

style:
	scripts/style.sh

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) modules_install
	test -n "$(DESTDIR)" || depmod -a $(patsubst linux-headers-%,%,$(notdir $(patsubst %/build,%,$(KDIR))))
	install -D -m 0644 provider/libsroce-rdmav34.so $(DESTDIR)$(PROVIDER_DIR)/libsroce-rdmav34.so
	install -D -m 0644 provider/sroce.driver $(DESTDIR)$(DRIVER_D)/sroce.driver
	install -D -m 0755 tools/sroce-config $(DESTDIR)$(PREFIX)/sbin/sroce-config
	install -D -m 0644 Documentation/man/sroce-config.8 $(DESTDIR)$(PREFIX)/share/man/man8/sroce-config.8
	install -D -m 0755 tools/sroce-top $(DESTDIR)$(PREFIX)/sbin/sroce-top
	install -D -m 0644 Documentation/man/sroce-top.8 $(DESTDIR)$(PREFIX)/share/man/man8/sroce-top.8

# deb: dpkg-buildpackage in a clean copy of the tree (scripts/deb.sh).
deb:
	scripts/deps.sh deb
	scripts/deb.sh

# check-deb: tests/pkg/t-deb.sh in a guest (DKMS compiles there: minutes).
check-deb: deb
	scripts/check-deb.sh $(CHECK_DEB_ARGS)

uninstall:
	rm -f $(DESTDIR)$(PROVIDER_DIR)/libsroce-rdmav34.so $(DESTDIR)$(DRIVER_D)/sroce.driver
	rm -f $(DESTDIR)$(PREFIX)/sbin/sroce-config $(DESTDIR)$(PREFIX)/share/man/man8/sroce-config.8
	rm -f $(DESTDIR)$(PREFIX)/sbin/sroce-top $(DESTDIR)$(PREFIX)/share/man/man8/sroce-top.8

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C provider clean
	-$(MAKE) -C tests/unit clean
	-$(MAKE) -C tests/fuzz clean
	-$(MAKE) -C tools/ccsim clean
	-$(MAKE) -C tests/datapath clean
	-$(MAKE) -C bench clean
