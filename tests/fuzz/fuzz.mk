# SPDX-License-Identifier: GPL-2.0-or-later
# netshim - libFuzzer targets: included by the top-level Makefile
#
#   make fuzz-build     build every tests/fuzz/fuzz_*.c into build/fuzz/
#   make fuzz           build, then run each target FUZZ_SECONDS (20) in a
#                       network namespace of its own (tests/fuzz/run.sh)
#
# Everything is compiled again with clang's coverage and sanitizers, apart
# from the daemon's own objects, so the two builds never mix.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 20
FUZZ_JOBS    ?= 2
FUZZ_B       := build/fuzz
FUZZ_CFLAGS  := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                -g -O1 -std=gnu11 -D_GNU_SOURCE -I. \
                -DNETSHIM_VERSION='"fuzz"' -Wall -Wextra -Ibuild/bpf
FUZZ_LDLIBS  := -lmnl -lbpf -luring

FUZZ_LIB_SRCS := $(filter-out daemon/main.c %.bpf.c,\
                 $(wildcard $(SRC_DIRS:%=%/*.c)))
FUZZ_HDRS     := $(wildcard $(SRC_DIRS:%=%/*.h)) \
                 $(BPF_SKELS) tests/fuzz/common.h
FUZZ_LIB_OBJS := $(FUZZ_LIB_SRCS:%.c=$(FUZZ_B)/%.o) \
                 $(FUZZ_B)/tests/fuzz/common.o
FUZZ_TARGETS  := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS     := $(FUZZ_TARGETS:%=$(FUZZ_B)/%)

.PHONY: fuzz fuzz-build
# Objects reached only through pattern rules: keep them between builds
.SECONDARY: $(FUZZ_LIB_OBJS) $(FUZZ_TARGETS:%=$(FUZZ_B)/tests/fuzz/%.o)

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_B=$(FUZZ_B) \
		tests/fuzz/run.sh $(FUZZ_TARGETS)

$(FUZZ_B)/%.o: %.c $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

# The targets themselves must build without a warning
$(FUZZ_B)/tests/fuzz/%.o: tests/fuzz/%.c $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Werror -c -o $@ $<

$(FUZZ_B)/fuzz_%: $(FUZZ_B)/tests/fuzz/fuzz_%.o $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^ $(FUZZ_LDLIBS)
