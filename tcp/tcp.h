/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - TCP adaptation: guest TCP connections on host TCP sockets
 */
#ifndef NETSHIM_TCP_H
#define NETSHIM_TCP_H

#include <stdbool.h>
#include <stdint.h>

#include "net/fwd.h"
#include "net/ip.h"
#include "netshim/ctx.h"
#include "netshim/migio.h"

int tcp_init(struct ctx *c);
void tcp_input(struct ctx *c, const struct l4_meta *m, const struct pkt *l4);
void tcp_sock_ready(struct ctx *c, uint32_t idx, uint32_t events);
void tcp_listener_ready(struct ctx *c, uint32_t idx);
void tcp_listener_pool(struct ctx *c, struct fwd_listener ***lst,
		       uint32_t **n);
void tcp_accept_fwd(struct ctx *c, const struct fwd_listener *l);
void tcp_timer(struct ctx *c);
void tcp_tx_resume(struct ctx *c);
bool tcp_tx_waiting(const struct ctx *c);
/* Longest an ACK owed for the guest's data waits for its next segment */
#define TCP_ACK_HOLD_MS		1

bool tcp_flush_acks(struct ctx *c, bool all);
void tcp_drop_pending(struct ctx *c, bool defer);
void tcp_drop_failed(struct ctx *c);
void tcp_flush_writes(struct ctx *c);
void tcp_guest_gone(struct ctx *c);
void tcp_guest_fresh(struct ctx *c);
unsigned int tcp_count(struct ctx *c);
struct flow_info;
bool tcp_conn_info(struct ctx *c, uint32_t idx, struct flow_info *fi);
uint32_t tcp_conn_end(struct ctx *c);
int tcp_migrate_save(struct ctx *c, struct migio *io);
int tcp_migrate_load(struct ctx *c, struct migio *io);
void tcp_migrate_release(void);
void tcp_migrate_back(struct ctx *c);
int tcp_upgrade_save(struct ctx *c, struct migio *io);
int tcp_upgrade_load(struct ctx *c, struct migio *io);
void tcp_upgrade_commit(struct ctx *c);
const struct fwd_listener *tcp_listeners(const struct ctx *c, uint32_t *n);

#define TCP_PASST_REC		112	/* a connection's record in passt's
					 * device state (tcp/migrate_passt.c) */
int tcp_passt_save(struct ctx *c, struct migio *io);
int tcp_passt_load(struct ctx *c, struct migio *io);

#endif /* NETSHIM_TCP_H */
