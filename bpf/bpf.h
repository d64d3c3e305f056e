/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - what the eBPF features of bpf/ share
 */
#ifndef NETSHIM_BPF_H
#define NETSHIM_BPF_H

#include <stdbool.h>
#include <stddef.h>

#include "netshim/conf.h"

void bpf_log_init(void);
bool bpf_wanted(const struct conf *conf);
const char *bpf_why(int err, char *buf, size_t len);
int bpf_fallback(const struct conf *conf, const char *feature,
		 const char *instead, int err);

#endif /* NETSHIM_BPF_H */
