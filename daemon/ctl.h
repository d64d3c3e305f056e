/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the control socket (-c) and the counters' socket (--metrics)
 */
#ifndef NETSHIM_CTL_H
#define NETSHIM_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netshim/ctx.h"

int ctl_init(struct ctx *c);
void ctl_listen_ready(struct ctx *c, bool metrics);
void ctl_ready(struct ctx *c, uint32_t idx, uint32_t events);
void ctl_timer(struct ctx *c);
void ctl_after(struct ctx *c);
void ctl_exit(struct ctx *c);
void ctl_listeners(const struct ctx *c, int *ctl, int *metrics);
size_t ctl_metrics(struct ctx *c, char *buf, size_t size);

#endif /* NETSHIM_CTL_H */
