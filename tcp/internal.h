/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - what the rooms of tcp/ share: the table, and each other's calls
 *
 * conn.c keeps the table of connections and their sockets; to_guest.c
 * sends segments to the guest (the peek-based sender, windows, ACKs,
 * retransmission by rewinding); from_guest.c takes the guest's segments;
 * sock.c handles socket events, accepted connections and timers; ooo.c
 * holds the guest's bytes past a hole.  Calls go from from_guest.c and
 * sock.c to to_guest.c and conn.c, from to_guest.c to conn.c, never
 * back.  The migration, repair-mode, upgrade and splice rooms use this
 * header too: tcp/README.md lists every room with its job and callees.
 */
#ifndef NETSHIM_TCP_INTERNAL_H
#define NETSHIM_TCP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/uio.h>

#include "conn.h"
#include "segment.h"
#include "seq.h"
#include "link/link.h"
#include "net/fwd.h"
#include "net/ip.h"
#include "netshim/ctx.h"
#include "netshim/itable.h"

#define TCP_BATCH		128	/* segments per peek */
#define TCP_PEEK_IOV		1024	/* buffers per peek: IOV_MAX */
#define TCP_WRITE_IOV		1024	/* buffers per write: IOV_MAX */
#define TCP_WBATCH		256	/* guest segments per write */
#define TCP_DROP_BATCH		64	/* connections dropping ACKed bytes */
#define TCP_RTO_INIT_MS		1000	/* RFC 6298 2.1, before a sample */
#define TCP_RETRIES_MAX		10
#define TCP_HANDSHAKE_TIMEOUT	10	/* s, SYN to the guest unanswered */
#define TCP_FIN_TIMEOUT		60	/* s, both FINs out, last ACK missing */
#define TCP_DUP_ACKS		3
#define TCP_WS_OURS		8	/* windows up to 16 MiB */
#define TCP_DISCARD_SIZE	(1 << 20)	/* most in flight, pre-6.9 */
#define TCP_OOO_SLOTS		4		/* runs past a hole held at once */
#define TCP_OOO_SLOT		(1 << 20)	/* bytes one run may hold */
#define TCP_DISCARD_MIN		(256 << 10)

/**
 * struct tcp_table - connections, sized at start-up
 * @c:		connections, one per slot of @idx
 * @idx:	free slots, and hash chains of the used ones; its hiwater
 *		bounds the timers' scan
 * @ack_list:	connections owing the guest an ACK, -1 terminated
 * @wait_list:	connections waiting for room towards the VMM
 * @lst:	listeners of -t
 * @nlst:	their number
 * @wb_conn:	connection whose guest data waits in @wb_iov, or NULL
 * @wb_iov:	in-order guest payloads of one batch of frames, one write
 * @wb_n:	entries in @wb_iov
 * @wb_len:	bytes in @wb_iov
 * @peek_off:	the kernel has SO_PEEK_OFF for TCP
 * @discard:	bytes peeked again without SO_PEEK_OFF land here
 * @frames:	frames reserved on the link for one peek
 * @drop:	connections with acknowledged bytes left in their socket
 * @n_drop:	entries in @drop
 * @isn_key:	secret for initial sequence numbers
 * @ooo_buf:	TCP_OOO_SLOTS slots of TCP_OOO_SLOT bytes for the guest's
 *		bytes held past a hole (ooo.c)
 * @ooo_owner:	index of the connection holding each slot, -1 if free
 * @mig_recs:	passt's records of a migration, kept until their sockets
 *		come (migrate_passt.c): room for as many as the table holds,
 *		zero pages until used
 */
struct tcp_table {
	struct tcp_conn *c;
	struct itable idx;
	int32_t ack_list;
	int32_t wait_list;
	struct fwd_listener *lst;
	uint32_t nlst;
	struct tcp_conn *wb_conn;
	struct iovec wb_iov[TCP_WBATCH];
	int wb_n;
	uint32_t wb_len;
	bool peek_off;
	uint8_t *discard;
	struct link_frame frames[TCP_BATCH];
	int32_t drop[TCP_DROP_BATCH];
	int n_drop;
	uint64_t isn_key;
	uint8_t *ooo_buf;
	int32_t ooo_owner[TCP_OOO_SLOTS];
	uint8_t *mig_recs;
};

/* conn.c */
int64_t tcp_now_ms(const struct ctx *c);
int32_t conn_index(const struct tcp_table *t,
		   const struct tcp_conn *conn);
struct tcp_conn *conn_lookup(struct tcp_table *t,
			     const struct in6_addr *gaddr,
			     uint16_t gport,
			     const struct in6_addr *raddr,
			     uint16_t rport);
struct tcp_conn *conn_new(struct ctx *c, const struct in6_addr *gaddr,
			  uint16_t gport, const struct in6_addr *raddr,
			  uint16_t rport, uint8_t qp);
void conn_free(struct ctx *c, struct tcp_conn *conn, bool rst);
void conn_epoll(struct ctx *c, struct tcp_conn *conn, uint32_t events);
int conn_drop_acked(struct tcp_conn *conn);
void tcp_sock_opts(int fd);

/* ooo.c */
void tcp_ooo_hold(struct ctx *c, struct tcp_conn *conn,
		  const struct tcp_seg *s);
void tcp_ooo_drain(struct ctx *c, struct tcp_conn *conn);

/**
 * tcp_ooo_release() - let go of a connection's run held past a hole, if any
 * @t:		TCP table
 * @conn:	connection
 */
static inline void tcp_ooo_release(struct tcp_table *t, struct tcp_conn *conn)
{
	if (!conn->ooo)
		return;
	t->ooo_owner[conn->ooo - 1] = -1;
	conn->ooo = 0;
	conn->ooo_len = 0;
}

/* to_guest.c */
void tcp_ack_later(struct ctx *c, struct tcp_conn *conn);
void tcp_ack_paid(struct tcp_conn *conn);
void tcp_guest_took(struct ctx *c, struct tcp_conn *conn, uint32_t done,
		    uint32_t len);

uint16_t tcp_link_mss(const struct ctx *c, bool v6);
void tcp_rst_reply(struct ctx *c, const struct l4_meta *m,
		   const struct tcp_seg *s);
int tcp_send_ctl(struct ctx *c, struct tcp_conn *conn, uint8_t flags,
		 uint32_t seq);
void tcp_send_dupacks(struct ctx *c, struct tcp_conn *conn, int n);
void tcp_reset(struct ctx *c, struct tcp_conn *conn);
void tcp_update_clamp(struct tcp_conn *conn);
void tcp_drop_later(struct ctx *c, struct tcp_conn *conn, uint32_t bytes);
void tcp_set_peek_off(struct tcp_conn *conn);
int tcp_send_from(struct ctx *c, struct tcp_conn *conn, uint32_t seq);
void tcp_rewind(struct ctx *c, struct tcp_conn *conn);
void tcp_timer_arm(struct ctx *c, struct tcp_conn *conn);
bool tcp_persist_probe(struct ctx *c, struct tcp_conn *conn);

/**
 * tcp_persist_due() - is the persist timer the one to run: established,
 *		       nothing in flight, the guest's window closed
 * @conn:	connection
 *
 * Return: true if so
 */
static inline bool tcp_persist_due(const struct tcp_conn *conn)
{
	return conn->state == CONN_ESTABLISHED && !conn->wnd_guest &&
	       conn->seq_to_guest == conn->seq_acked &&
	       !(conn->flags & (F_FIN_SENT | F_MIGRATED));
}

/**
 * tcp_sent_max() - the end of what went to the guest at least once
 * @conn:	connection
 *
 * After a retransmission went back, bytes up to @conn->recover were sent
 * before and may have arrived; the guest's ACK of them is good.  Not
 * past a FIN, which a rewind takes back as unsent, and only with a socket
 * to peek them from again.
 *
 * Return: the sequence number after the last byte sent
 */
static inline uint32_t tcp_sent_max(const struct tcp_conn *conn)
{
	if (conn->flags & F_HOST_EOF || conn->state != CONN_ESTABLISHED ||
	    conn->fd < 0 || !seq_gt(conn->recover, conn->seq_to_guest))
		return conn->seq_to_guest;
	return conn->recover;
}

void tcp_wait_tx(struct ctx *c, struct tcp_conn *conn);
void tcp_send_data(struct ctx *c, struct tcp_conn *conn);
void tcp_send_pending(struct ctx *c, struct tcp_conn *conn);
void tcp_connect_failed(struct ctx *c, struct tcp_conn *conn, int err);

/* migrate.c: a connection's record in netshim's device state, which an
 * upgrade in place (upgrade.c) writes too, its socket passed along
 */
#define TCP_REC_FD		0xffffffffU
struct migio;
int tcp_rec_put(struct migio *io, const struct tcp_conn *conn, uint32_t sent,
		uint32_t ext);
int tcp_rec_get(struct migio *io, struct tcp_conn *conn, uint32_t *ext);

#endif /* NETSHIM_TCP_INTERNAL_H */
