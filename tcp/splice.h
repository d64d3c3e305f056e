/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - local flows: two TCP sockets joined with splice()
 */
#ifndef NETSHIM_SPLICE_H
#define NETSHIM_SPLICE_H

#include <stdbool.h>
#include <stdint.h>

#include "netshim/ctx.h"

int splice_init(struct ctx *c, unsigned int max);
int splice_join(struct ctx *c, int a, int b, bool b_connecting);
void splice_ready(struct ctx *c, uint32_t idx, uint32_t events);
unsigned int splice_count(const struct ctx *c);
void splice_timer(struct ctx *c);
void splice_counters(struct ctx *c);
bool splice_bpf_loaded(const struct ctx *c);

struct migio;
int splice_upgrade_save(struct ctx *c, struct migio *io);
int splice_upgrade_load(struct ctx *c, struct migio *io);

#endif /* NETSHIM_SPLICE_H */
