/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - what the libFuzzer targets share: one fixed configuration
 */
#ifndef NETSHIM_FUZZ_COMMON_H
#define NETSHIM_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "netshim/conf.h"

/* Fail loudly: a broken invariant is a finding, like an ASan report */
#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond))						\
			fuzz_fail(__FILE__, __LINE__, #cond);		\
	} while (0)

void fuzz_conf_fill(struct conf *c);
uint8_t *fuzz_setup_reply(struct conf *c, size_t size);
void fuzz_logs_off(void);
void fuzz_fail(const char *file, int line, const char *what)
	__attribute__((noreturn));

/* libFuzzer's entry points, for -Wmissing-prototypes */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* NETSHIM_FUZZ_COMMON_H */
