# SPDX-License-Identifier: GPL-2.0-or-later
# netshim - userspace network backend for virtual machines in pods
#
#   make            build build/netshim (daemon/main.c and the folders
#                   below it: doc/architecture.md)
#   make check      install test dependencies (Debian), unit tests (also
#                   under ASan/UBSan), integration tests in namespaces
#   make check-libvirt  only the guests booted through libvirt (netshim as
#                   libvirt's passt, over the stream socket and vhost-user)
#   make demo       boot a real guest behind netshim and show it working
#   make bench      iperf3 side by side with passt and libslirp
#   make fuzz       libFuzzer targets, a bounded run each (tests/fuzz/)
#   make arch       file-to-file calls of the daemon: fails on any loop of
#                   files that call each other (tests/arch/callgraph.py)

VERSION  := $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1)
CC       ?= cc
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
            -DNETSHIM_VERSION='"$(VERSION)"' -I.
LDLIBS   += -lmnl -lbpf -luring

# eBPF programs (bpf/*.bpf.c) are compiled by clang's BPF target and
# embedded in the daemon as libbpf skeletons (build/bpf/NAME.skel.h); their
# loaders (bpf/*.c) are ordinary objects of the daemon
BPF_CLANG ?= clang
BPF_CFLAGS := -O2 -g -Wall -Werror -target bpf -D__TARGET_ARCH_x86 \
              -I/usr/include/$(shell $(CC) -print-multiarch)
BPF_PROGS := $(wildcard bpf/*.bpf.c)
BPF_SKELS := $(BPF_PROGS:bpf/%.bpf.c=build/bpf/%.skel.h)
CFLAGS   += -Ibuild/bpf

SRC_DIRS := daemon net netshim link vhost_user tcp udp icmp dhcp ndp bpf
LIB_SRCS := $(filter-out daemon/main.c %.bpf.c,$(wildcard $(SRC_DIRS:%=%/*.c)))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
HDRS     := $(wildcard $(SRC_DIRS:%=%/*.h)) \
            $(BPF_SKELS)

B        := build/obj
BA       := build/asan
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

LIB_OBJS  = $(LIB_SRCS:%.c=$(B)/%.o)
LIB_AOBJS = $(LIB_SRCS:%.c=$(BA)/%.o)
UNITS     = $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
UNITS_A   = $(UNIT_SRCS:tests/unit/%.c=$(BA)/tests/%)

.PHONY: all deps unit unit-asan arch lint format integration check check-libvirt demo \
        bench fuzz clean install

BIN      := build/netshim

REPAIR_BIN := build/netshim-repair
CTL_BIN    := build/netshim-ctl

all: $(BIN) $(REPAIR_BIN) $(CTL_BIN)

$(BIN): $(B)/daemon/main.o $(B)/libnetshim.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The TCP repair helper: alone, nothing of the daemon in it
$(REPAIR_BIN): repair/netshim-repair.c netshim/repair.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

# netshim's control socket client: the wire format and the -t grammar are
# the daemon's own (netshim/ctlwire.c, fwdspec.c, fwdtable.c)
$(CTL_BIN): ctl/netshim-ctl.c $(B)/libnetshim.a $(HDRS)
	$(CC) $(CFLAGS) -o $@ $< $(B)/libnetshim.a $(LDLIBS)

# The same daemon, aborting on any allocation once its loop runs: the
# integration tests run against it (tests/alloc/guard.c), with the hooks
# only tests may use (tests/hooks/)
GUARD_BIN := build/netshim-allocguard

$(GUARD_BIN): $(B)/daemon/main.o $(B)/tests/alloc/guard.o \
	      $(B)/tests/hooks/splice.o $(B)/libnetshim.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(B)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# --version prints the commit built: conf.c, which holds it, is compiled
# again whenever that changes, not only when conf.c does
build/version: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@

$(B)/netshim/conf.o $(BA)/netshim/conf.o: build/version

.PHONY: FORCE

$(BA)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -c -o $@ $<

build/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.bpf.h)
	@mkdir -p $(dir $@)
	$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

.SECONDARY: $(BPF_PROGS:bpf/%.bpf.c=build/bpf/%.bpf.o) $(BPF_SKELS)

build/bpf/%.skel.h: build/bpf/%.bpf.o
	bpftool gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

# Made afresh: ar would keep the objects of sources since moved or removed
$(B)/libnetshim.a: $(LIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(BA)/libnetshim.a: $(LIB_AOBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/tests/%: tests/unit/%.c $(B)/libnetshim.a $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(B)/libnetshim.a -lcmocka $(LDLIBS)

$(BA)/tests/%: tests/unit/%.c $(BA)/libnetshim.a $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -o $@ $< $(BA)/libnetshim.a -lcmocka $(LDLIBS)

tests/relay: tests/relay.c
	$(CC) $(CFLAGS) -o $@ $<

tests/vu_relay: tests/vu_relay.c
	$(CC) $(CFLAGS) -o $@ $<

deps:
	contrib/install-deps.sh

unit: $(UNITS)
	@set -e; for t in $(UNITS); do echo "== $$t"; $$t; done

unit-asan: $(UNITS_A)
	@set -e; for t in $(UNITS_A); do echo "== $$t (asan+ubsan)"; $$t; done

arch: $(BIN)
	tests/arch/callgraph.py $(B)

# make static: the daemon, its repair helper and netshim-ctl linked
# statically, for launcher images whose libraries are not Debian's
# (KubeVirt's virt-launcher is CentOS Stream 9; contrib/kubevirt.md).
# Objects of their own
# (NETSHIM_STATIC: users from /etc/passwd, not NSS, netshim/passwd.c), so
# that make and make static never mix them.  Debian has no libmnl.a: the
# part of libmnl netshim calls is static/mnl.c.  A linker warning fails
# it, as glibc's for NSS functions would: they need glibc's shared objects
SB := build/static/obj
STATIC_BIN := build/static/netshim build/static/netshim-repair \
              build/static/netshim-ctl
STATIC_LDFLAGS := -static -Wl,--fatal-warnings

.PHONY: static
static: $(STATIC_BIN)

build/static/netshim: $(SB)/daemon/main.o $(SB)/libnetshim.a $(SB)/static/mnl.o
	$(CC) $(CFLAGS) $(STATIC_LDFLAGS) -o $@ $^ -lbpf -lelf -lz -luring

build/static/netshim-repair: repair/netshim-repair.c netshim/repair.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(STATIC_LDFLAGS) -o $@ $<

build/static/netshim-ctl: ctl/netshim-ctl.c $(SB)/libnetshim.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DNETSHIM_STATIC $(STATIC_LDFLAGS) -o $@ $< \
		$(SB)/libnetshim.a

$(SB)/libnetshim.a: $(LIB_SRCS:%.c=$(SB)/%.o)
	rm -f $@ && $(AR) rcs $@ $^

$(SB)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DNETSHIM_STATIC -c -o $@ $<

$(SB)/netshim/conf.o: build/version

# Its unit test compiles static/mnl.c beside the real libmnl
$(B)/tests/test_mnl $(BA)/tests/test_mnl: static/mnl.c

# The Debian guest's root filesystem is built (or found cached) first: its
# few minutes of mmdebstrap would otherwise count against t_vm_debian's
# time limit
# Two at a time (JOBS): none measures speed, and their guests under TCG
# keep a core busy each; a clean clone's run takes a third less
JOBS ?= 2
# passt from Debian trixie's source package, the other end of the
# migrations between passt and netshim (t_migrate_*): built once into
# build/passt-vu; if it cannot be, the tests that need it fail and say why
# (build/passt-vu/failed.txt), the others run.  pesto, passt 2026's
# configuration client, from passt's sources where they can be had: the
# control socket tests drive netshim with it and with netshim-ctl, or
# with netshim-ctl alone, saying why (build/pesto/failed.txt)
PASST_VU_DIR := $(CURDIR)/build/passt-vu
integration: $(BIN) $(GUARD_BIN) $(REPAIR_BIN) $(CTL_BIN) tests/relay tests/vu_relay \
             build/static/netshim
	tests/vm/debian/mkrootfs.sh
	-tests/bench/passt-vu.sh $(PASST_VU_DIR)
	-tests/ctl/pesto.sh $(CURDIR)/build/pesto
	JOBS=$(JOBS) NETSHIM=$(CURDIR)/$(GUARD_BIN) PASST_VU=$(PASST_VU_DIR)/passt \
		tests/integration/run.sh

# Everything CI runs: unit tests plain and sanitized, the call graph's
# check for loops, the integration tests
# (relay and VM guests, the hostile-guest suite) against the allocation
# guard, a short fuzz run, and a short benchmark printed in the log
check: deps
	$(MAKE) unit unit-asan arch lint
	$(MAKE) integration
	$(MAKE) fuzz FUZZ_SECONDS=10
	BENCH_QUICK=1 $(MAKE) bench

# cppcheck's warnings, portability and performance findings over the
# daemon's and tools' sources (not its style advice): none, in make check.
# A finding that is not one is suppressed where it stands, with a comment
# saying why (cppcheck-suppress).  .clang-format formats new code.
LINT_SRCS := $(filter-out %.bpf.c,$(wildcard $(SRC_DIRS:%=%/*.c))) \
	     ctl/netshim-ctl.c repair/netshim-repair.c
lint: $(BPF_SKELS)
	cppcheck -q --std=c11 -D_GNU_SOURCE -I. -Ibuild/bpf \
		--enable=warning,portability,performance --inline-suppr \
		--suppress=missingIncludeSystem --error-exitcode=1 $(LINT_SRCS)

# Format files as .clang-format says: make format FILES="a.c b.h"
format:
	clang-format -i $(FILES)

# The test guest booted by libvirt 11.3 with netshim as the passt it
# starts, over the stream socket and over vhost-user
# (tests/libvirt/t_libvirt.sh, about a minute each; also in integration)
check-libvirt: deps $(BIN) $(GUARD_BIN) tests/relay
	NETSHIM=$(CURDIR)/$(GUARD_BIN) tests/integration/run.sh t_libvirt

demo: deps $(BIN) tests/relay
	tests/vm/demo.sh

bench: deps $(BIN) tests/relay
	$(if $(BENCH_QUICK),,contrib/install-deps.sh bench)
	tests/bench/bench.sh

include tests/fuzz/fuzz.mk

clean:
	rm -rf build tests/relay tests/vu_relay

install: $(BIN) $(REPAIR_BIN) $(CTL_BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)/usr/local/bin/netshim
	install -D -m 0755 $(REPAIR_BIN) $(DESTDIR)/usr/local/bin/netshim-repair
	install -D -m 0755 $(CTL_BIN) $(DESTDIR)/usr/local/bin/netshim-ctl
	install -D -m 0644 doc/netshim.1 $(DESTDIR)/usr/local/share/man/man1/netshim.1
	install -D -m 0644 doc/netshim-ctl.1 $(DESTDIR)/usr/local/share/man/man1/netshim-ctl.1
