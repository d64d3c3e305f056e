/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - TCP sockets in repair mode, for a migration (tcp/repair.c):
 * what the two formats of the device state share
 */
#ifndef NETSHIM_TCP_REPAIR_H
#define NETSHIM_TCP_REPAIR_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "conn.h"
#include "netshim/ctx.h"

/* Most queued bytes a connection moves with, both queues: a slow guest's
 * receive queue grows to the pod's tcp_rmem maximum (32 MiB on kernels
 * that raised it), and passt moves up to 64 MiB of each
 */
#define MIGRATE_TCP_QBUF	(128U << 20)

/* One connection's queues on their way, send queue first */
extern uint8_t tcp_mig_q[MIGRATE_TCP_QBUF];

/**
 * struct tcp_sock_state - what a repaired socket is made of
 * @family:	4 or 6
 * @state:	TCP state (TCP_ESTABLISHED)
 * @snd_ws:	send window scale
 * @rcv_ws:	receive window scale
 * @options:	tcpi_options
 * @laddr:	local address (v4-mapped for IPv4)
 * @paddr:	peer address
 * @lport:	local port
 * @pport:	peer port
 * @mss:	TCP_MAXSEG
 * @ts:		TCP_TIMESTAMP
 * @snd_seq:	sequence number at the end of the send queue
 * @rcv_seq:	sequence number at the end of the receive queue
 * @sndq:	send queue bytes
 * @notsent:	of which not sent yet
 * @rcvq:	receive queue bytes
 * @w:		TCP_REPAIR_WINDOW
 */
struct tcp_sock_state {
	uint8_t family, state, snd_ws, rcv_ws, options;
	struct in6_addr laddr, paddr;
	uint16_t lport, pport;
	uint32_t mss, ts, snd_seq, rcv_seq, sndq, notsent, rcvq;
	struct tcp_repair_window w;
};

/**
 * struct tcp_dump - the source's walk over its connections
 * @rep:	a repair helper has the sockets that move
 * @asked:	whether a helper is there was asked (repair_wait())
 * @ready:	connections below this index were waited for
 * @queued:	the helper was given those below this index
 * @mark:	what to wait for (repair_wait_for())
 * @t0:		start, for the log
 * @waited:	time spent waiting for the helper
 * @moved:	connections that went with their socket
 */
struct tcp_dump {
	bool rep, asked;
	uint32_t ready, queued;
	uint64_t mark, t0, waited;
	uint32_t moved;
};

/**
 * struct tcp_restore - the destination's rebuilding of connections
 * @rep:	a repair helper is there: 1, not: 0, not asked yet: -1
 * @before:	connections kept before, for the log
 * @t0:		start, for the log
 */
struct tcp_restore {
	int rep;
	uint64_t before, t0;
};

bool tcp_migratable(const struct tcp_conn *conn);
void tcp_dump_start(struct ctx *c, struct tcp_dump *d);
bool tcp_dump_conn(struct ctx *c, struct tcp_dump *d, uint32_t i,
		   struct tcp_sock_state *st);
void tcp_dump_unlinger(struct ctx *c, struct tcp_conn *conn);
void tcp_dump_done(struct ctx *c, struct tcp_dump *d, struct tcp_conn *conn,
		   bool sock);
void tcp_dump_end(struct ctx *c, struct tcp_dump *d, uint32_t n);

struct migio;

int tcp_restore_count(struct ctx *c, struct migio *io, uint32_t *n);
void tcp_restore_start(struct ctx *c, struct tcp_restore *r);
void tcp_restore_conn(struct ctx *c, struct tcp_restore *r,
		      struct tcp_conn *from, const struct tcp_sock_state *st,
		      uint32_t left);
void tcp_restore_end(struct ctx *c, struct tcp_restore *r, uint32_t n);

#endif /* NETSHIM_TCP_REPAIR_H */
