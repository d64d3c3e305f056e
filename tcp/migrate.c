// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - TCP connections in a migrated guest's device state
 *
 * The source writes one record per connection; the destination reads
 * each as untrusted input.  A record is fixed (addresses, ports, state,
 * the guest side's sequence numbers and windows) and may be followed by
 * a variable part carrying the host socket's own state, for a
 * destination that can rebuild the socket; without one, the destination
 * resets the connection towards the guest at once, with the sequence
 * numbers the guest expects, so that its applications see a reset, never
 * a hang, and new connections work from the start.
 *
 * Record, all integers big endian (MIGRATE_TCP_REC bytes):
 *   guest address (16, v4-mapped), remote address (16), guest port (2),
 *   remote port (2), state (1), guest and own window scale (1 each),
 *   reserved (1), flags (2), guest MSS (2), next sequence from the guest,
 *   next to it, oldest it has not acknowledged, its initial one, its
 *   window (4 each), then the length of the socket part (4) and that part.
 */
#include <errno.h>
#include <string.h>

#include "tcp.h"
#include "internal.h"
#include "netshim/inany.h"
#include "netshim/log.h"

#define MIGRATE_TCP_REC		64
#define MIGRATE_TCP_EXT_MAX	(64U << 20)	/* socket part: its queues */

/**
 * tcp_migrate_save() - write every connection to a device state
 * @c:		execution context
 * @io:		the stream
 *
 * Their number, then one record each.
 *
 * Return: 0 on success, -1 with @io->err set
 */
int tcp_migrate_save(struct ctx *c, struct migio *io)
{
	struct tcp_table *t = c->tcp;
	uint32_t i, n = 0;

	for (i = 0; i < t->idx.hiwater; i++)
		n += t->c[i].state != CONN_FREE;
	if (migio_put_u32(io, n))
		return -1;
	for (i = 0; i < t->idx.hiwater; i++) {
		const struct tcp_conn *conn = &t->c[i];
		uint8_t r[MIGRATE_TCP_REC - 20];

		if (conn->state == CONN_FREE)
			continue;
		memcpy(r, &conn->gaddr, 16);
		memcpy(r + 16, &conn->raddr, 16);
		r[32] = conn->gport >> 8;
		r[33] = conn->gport & 0xff;
		r[34] = conn->rport >> 8;
		r[35] = conn->rport & 0xff;
		r[36] = conn->state;
		r[37] = conn->ws_guest;
		r[38] = conn->ws_ours;
		r[39] = 0;
		r[40] = conn->flags >> 8;
		r[41] = conn->flags & 0xff;
		r[42] = conn->mss_guest >> 8;
		r[43] = conn->mss_guest & 0xff;
		if (migio_put(io, r, sizeof(r)) ||
		    migio_put_u32(io, conn->seq_from_guest) ||
		    migio_put_u32(io, conn->seq_to_guest) ||
		    migio_put_u32(io, conn->seq_acked) ||
		    migio_put_u32(io, conn->seq_init_guest) ||
		    migio_put_u32(io, conn->wnd_guest) ||
		    migio_put_u32(io, 0))	/* no socket part */
			return -1;
	}
	return 0;
}

/**
 * tcp_migrate_reset() - reset a migrated connection towards the guest
 * @c:		execution context
 * @conn:	the connection as the source saw it, in no table
 *
 * As tcp_reset() does: the sequence number the guest expects next, or,
 * before the guest saw our SYN-ACK, the one it acknowledges.
 */
static void tcp_migrate_reset(struct ctx *c, struct tcp_conn *conn)
{
	uint32_t seq = conn->state == CONN_CONNECTING ? conn->seq_acked :
						       conn->seq_to_guest;

	conn->fd = -1;
	tcp_send_ctl(c, conn, TH_RST | TH_ACK, seq);
	c->cnt.tcp_migrated_reset++;
}

/**
 * tcp_migrate_load() - read the connections of a device state
 * @c:		execution context
 * @io:		the stream, at the number of records
 *
 * Each connection is reset towards the guest: the host socket stays with
 * the source.
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL for a malformed
 * record, EFBIG for more connections than --max-tcp allows)
 */
int tcp_migrate_load(struct ctx *c, struct migio *io)
{
	uint32_t i, n;

	if (migio_get_u32(io, &n))
		return -1;
	if (n > c->tcp->idx.n) {
		err("migration: %u TCP connections, more than --max-tcp %u",
		    n, c->tcp->idx.n);
		io->err = EFBIG;
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint8_t r[MIGRATE_TCP_REC - 20];
		struct tcp_conn conn = { 0 };
		uint32_t ext;

		if (migio_get(io, r, sizeof(r)) ||
		    migio_get_u32(io, &conn.seq_from_guest) ||
		    migio_get_u32(io, &conn.seq_to_guest) ||
		    migio_get_u32(io, &conn.seq_acked) ||
		    migio_get_u32(io, &conn.seq_init_guest) ||
		    migio_get_u32(io, &conn.wnd_guest) ||
		    migio_get_u32(io, &ext))
			return -1;
		memcpy(&conn.gaddr, r, 16);
		memcpy(&conn.raddr, r + 16, 16);
		conn.gport = (uint16_t)(r[32] << 8 | r[33]);
		conn.rport = (uint16_t)(r[34] << 8 | r[35]);
		conn.state = r[36];
		conn.ws_guest = r[37];
		conn.ws_ours = r[38];
		conn.flags = (uint16_t)(r[40] << 8 | r[41]);
		conn.mss_guest = (uint16_t)(r[42] << 8 | r[43]);
		if (conn.state == CONN_FREE || conn.state > CONN_ESTABLISHED ||
		    !conn.gport || !conn.rport || conn.ws_guest > 14 ||
		    conn.ws_ours > 14 || ext > MIGRATE_TCP_EXT_MAX ||
		    inany_is4(&conn.gaddr) != inany_is4(&conn.raddr)) {
			err("migration: TCP connection %u of %u malformed",
			    i + 1, n);
			io->err = EINVAL;
			return -1;
		}
		if (migio_skip(io, ext))
			return -1;
		tcp_migrate_reset(c, &conn);
	}
	return 0;
}
