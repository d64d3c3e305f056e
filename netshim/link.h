/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the link to the VMM: a UNIX stream socket, QEMU framing
 */
#ifndef NETSHIM_LINK_H
#define NETSHIM_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "ctx.h"

int link_init(struct ctx *c);
int link_init_fd(struct ctx *c, int fd);
void link_accept(struct ctx *c);
void link_input(struct ctx *c);
void link_output_ready(struct ctx *c);
void link_close(struct ctx *c, const char *why);
int link_flush(struct ctx *c);
uint8_t *tx_reserve(struct ctx *c, size_t maxlen);
void tx_commit(struct ctx *c, uint8_t *frame, size_t len);
size_t tx_room(struct ctx *c);
size_t tx_space(struct ctx *c);

#endif /* NETSHIM_LINK_H */
