// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - guest data past a hole, held until the hole is filled
 *
 * netshim writes the guest's bytes to the socket in order and acknowledges
 * only what the socket took, so a segment past a hole (one the guest lost
 * on the way, or one the socket had no room for) cannot be written.  Not
 * kept, it costs the guest more than a retransmission: all it sent after
 * the hole must come again, without SACK one segment per round trip, and
 * what it sends meanwhile is dropped too.  A Linux guest's F-RTO sends new
 * data after a timeout, which was dropped in turn: each hole then took it
 * several retransmission timeouts, doubling, to get over, and an upload
 * with 0.1 % of its frames lost moved 5 MB in a minute.
 *
 * So the run of bytes that follows the first hole of a connection is
 * copied and held (one run per connection, contiguous, up to
 * TCP_OOO_SLOT bytes, within the window we advertised; what does not
 * extend it is dropped as before), and written behind the bytes that fill
 * the hole, in the same turn of the loop: the guest's next ACK covers it
 * all.  Where the guest agreed to SACK (RFC 2018; tcp/to_guest.c offers
 * it), each ACK meanwhile names the run in a SACK block, so that the
 * guest resends the hole alone and goes on sending behind the run, as to
 * any receiver.  Without SACK a Linux guest still meets timeouts at MTU
 * 1500: ACKs that jump over what it counted as duplicates look like
 * reordering to it.
 *
 * The slots are made at start-up, TCP_OOO_SLOTS of them for all
 * connections, their pages taken only when used; with none free, segments
 * past a hole are dropped.  No hole, no copy: the in-order path is
 * unchanged.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "internal.h"
#include "seq.h"

/**
 * tcp_ooo_hold() - keep a guest segment that came past a hole
 * @c:		execution context
 * @conn:	connection
 * @s:		the segment, after the next byte expected
 *
 * The first such segment starts the run; one that starts where the run
 * ends extends it.  Anything else is left to the guest to send again.
 */
void tcp_ooo_hold(struct ctx *c, struct tcp_conn *conn,
		  const struct tcp_seg *s)
{
	struct tcp_table *t = c->tcp;
	uint32_t len = (uint32_t)s->payload.len;
	struct iovec in, out[LINK_FRAME_IOV];
	size_t n, i;
	uint8_t *dst;

	if (!len || s->flags & (TH_FIN | TH_RST | TH_SYN) || conn->fd < 0)
		return;
	/* Past the window we advertised: no guest sends that */
	if (s->seq + len - conn->seq_from_guest > conn->wnd_adv)
		return;
	if (!conn->ooo) {
		int slot;

		for (slot = 0; slot < TCP_OOO_SLOTS; slot++)
			if (t->ooo_owner[slot] < 0)
				break;
		if (slot == TCP_OOO_SLOTS)
			return;
		t->ooo_owner[slot] = conn_index(t, conn);
		conn->ooo = (uint8_t)(slot + 1);
		conn->ooo_seq = s->seq;
		conn->ooo_len = 0;
	}
	if (s->seq != conn->ooo_seq + conn->ooo_len ||
	    len > TCP_OOO_SLOT - conn->ooo_len)
		return;

	in.iov_base = (void *)s->payload.data;
	in.iov_len = len;
	n = link_iov_resolve(c, &in, out, LINK_FRAME_IOV);
	if (!n)
		return;
	dst = t->ooo_buf + (size_t)(conn->ooo - 1) * TCP_OOO_SLOT +
	      conn->ooo_len;
	for (i = 0; i < n; i++) {
		memcpy(dst, out[i].iov_base, out[i].iov_len);
		dst += out[i].iov_len;
	}
	conn->ooo_len += len;
	c->cnt.tcp_ooo_held += len;
}

/**
 * tcp_ooo_drain() - write the held run once the bytes before it are in
 * @c:		execution context
 * @conn:	connection whose in-order bytes were just written
 *
 * What the socket does not take is let go, and the guest sends it again
 * once the window opens (tcp_flush_writes() has the same rule).
 */
void tcp_ooo_drain(struct ctx *c, struct tcp_conn *conn)
{
	struct tcp_table *t = c->tcp;
	uint32_t off, left;
	const uint8_t *src;
	ssize_t n;

	if (!conn->ooo || seq_lt(conn->seq_from_guest, conn->ooo_seq))
		return;
	off = conn->seq_from_guest - conn->ooo_seq;
	if (off >= conn->ooo_len) {
		tcp_ooo_release(t, conn);	/* all came again in order */
		return;
	}
	left = conn->ooo_len - off;
	src = t->ooo_buf + (size_t)(conn->ooo - 1) * TCP_OOO_SLOT + off;
	tcp_ooo_release(t, conn);

	n = send(conn->fd, src, left, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			tcp_reset(c, conn);
			return;
		}
		n = 0;
	}
	conn->room_est -= (uint32_t)n < conn->room_est ?
			  (uint32_t)n : conn->room_est;
	c->cnt.tcp_ooo_written += (uint64_t)n;
	tcp_guest_took(c, conn, (uint32_t)n, left);
}
