// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - TCP adaptation: guest TCP connections on host TCP sockets
 *
 * There is no TCP stack here.  Each guest connection is one host socket; the
 * kernel segments, retransmits and controls congestion towards the remote,
 * and netshim only translates between the guest's segments and the socket:
 *
 * - guest data is written to the socket and acknowledged only as far as the
 *   kernel accepted it; the window we advertise is the room the socket has;
 * - remote data is peeked from the socket (SO_PEEK_OFF: only new bytes) into
 *   frames for the guest and dequeued only once the guest acknowledged it; a
 *   retransmission is a peek again from the acknowledged point.
 *
 * tcp/README.md describes the states and the sequence bookkeeping.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "tcp.h"
#include "conn.h"
#include "segment.h"
#include "seq.h"
#include "netshim/flow.h"
#include "netshim/fwd.h"
#include "netshim/netns.h"
#include "splice.h"
#include "netshim/gaddr.h"
#include "icmp/icmp.h"
#include "netshim/inany.h"
#include "netshim/ip.h"
#include "link/link.h"
#include "netshim/log.h"
#include "netshim/outbound.h"

#define TCP_BATCH		128	/* segments per peek */
#define TCP_PEEK_IOV		1024	/* buffers per peek: IOV_MAX */
#define TCP_WRITE_IOV		1024	/* buffers per write: IOV_MAX */
#define TCP_WBATCH		256	/* guest segments per write */
#define TCP_RTO_INIT_MS		1000	/* RFC 6298 2.1, before a sample */
#define TCP_RETRIES_MAX		10
#define TCP_HANDSHAKE_TIMEOUT	10	/* s, SYN to the guest unanswered */
#define TCP_FIN_TIMEOUT		60	/* s, both FINs out, last ACK missing */
#define TCP_DUP_ACKS		3
#define TCP_WS_OURS		8	/* windows up to 16 MiB */
#define TCP_DISCARD_SIZE	(1 << 20)	/* most in flight, pre-6.9 */
#define TCP_DISCARD_MIN		(256 << 10)

/**
 * struct tcp_table - connections, sized at start-up
 * @c:		connections
 * @n:		number of connections
 * @bucket:	hash chains, -1 terminated
 * @nbuckets:	power of two
 * @free:	free list
 * @used:	connections in use
 * @hiwater:	one past the highest index ever used: timers scan below it
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
 * @isn_key:	secret for initial sequence numbers
 */
struct tcp_table {
	struct tcp_conn *c;
	uint32_t n;
	int32_t *bucket;
	uint32_t nbuckets;
	int32_t free;
	uint32_t used;
	uint32_t hiwater;
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
	uint64_t isn_key;
};

static void tcp_send_data(struct ctx *c, struct tcp_conn *conn);
static void tcp_connect_failed(struct ctx *c, struct tcp_conn *conn, int err);

/**
 * now_ms() - loop time in milliseconds
 * @c:		execution context
 *
 * Return: milliseconds of CLOCK_MONOTONIC
 */
static int64_t now_ms(const struct ctx *c)
{
	return (int64_t)c->now.tv_sec * 1000 + c->now.tv_nsec / 1000000;
}

/**
 * conn_index() - index of a connection, for epoll references and lists
 * @t:		table
 * @conn:	connection
 *
 * Return: index
 */
static int32_t conn_index(const struct tcp_table *t,
			  const struct tcp_conn *conn)
{
	return (int32_t)(conn - t->c);
}

/**
 * conn_bucket() - hash bucket of a connection key
 * @t:		table
 * @gaddr:	guest address
 * @gport:	guest port
 * @raddr:	remote address
 * @rport:	remote port
 *
 * Return: bucket index
 */
static uint32_t conn_bucket(const struct tcp_table *t,
			    const struct in6_addr *gaddr, uint16_t gport,
			    const struct in6_addr *raddr, uint16_t rport)
{
	return flow_key_hash(IPPROTO_TCP, gaddr, gport, raddr, rport) &
	       (t->nbuckets - 1);
}

/**
 * conn_lookup() - find a connection by its key
 * @t:		table
 * @gaddr:	guest address
 * @gport:	guest port
 * @raddr:	remote address
 * @rport:	remote port
 *
 * Return: connection or NULL
 */
static struct tcp_conn *conn_lookup(struct tcp_table *t,
				    const struct in6_addr *gaddr,
				    uint16_t gport,
				    const struct in6_addr *raddr,
				    uint16_t rport)
{
	int32_t i = t->bucket[conn_bucket(t, gaddr, gport, raddr, rport)];

	for (; i >= 0; i = t->c[i].next) {
		struct tcp_conn *conn = &t->c[i];

		if (conn->gport == gport && conn->rport == rport &&
		    inany_eq(&conn->gaddr, gaddr) &&
		    inany_eq(&conn->raddr, raddr))
			return conn;
	}
	return NULL;
}

/**
 * conn_isn() - initial sequence number for a new connection (RFC 6528)
 * @t:		table
 * @conn:	connection, key set
 *
 * Return: sequence number
 */
static uint32_t conn_isn(const struct tcp_table *t,
			 const struct tcp_conn *conn, const struct ctx *c)
{
	uint32_t h = flow_key_hash(IPPROTO_TCP, &conn->gaddr, conn->gport,
				   &conn->raddr, conn->rport);

	return h ^ (uint32_t)t->isn_key ^ (uint32_t)(now_ms(c) * 250);
}

/**
 * conn_new() - take a free connection and insert it with its key
 * @c:		execution context
 * @gaddr:	guest address
 * @gport:	guest port
 * @raddr:	remote address
 * @rport:	remote port
 *
 * Return: connection, or NULL if the table is full (counted)
 */
static struct tcp_conn *conn_new(struct ctx *c, const struct in6_addr *gaddr,
				 uint16_t gport, const struct in6_addr *raddr,
				 uint16_t rport)
{
	struct tcp_table *t = c->tcp;
	struct tcp_conn *conn;
	uint32_t b;

	if (t->free < 0) {
		c->cnt.tcp_full++;
		warn_rl(c->now.tv_sec, "TCP connection table full (%u): "
			"resetting new connections; see --max-tcp", t->n);
		return NULL;
	}
	conn = &t->c[t->free];
	t->free = conn->next;
	if ((uint32_t)conn_index(t, conn) + 1 > t->hiwater)
		t->hiwater = conn_index(t, conn) + 1;

	memset(conn, 0, sizeof(*conn));
	conn->gaddr = *gaddr;
	conn->raddr = *raddr;
	conn->gport = gport;
	conn->rport = rport;
	conn->fd = -1;
	conn->next_pending = -1;
	conn->next_wait = -1;
	conn->rto_ms = TCP_RTO_INIT_MS;
	conn->last = c->now.tv_sec;
	conn->ws_ours = TCP_WS_OURS;
	conn->seq_to_guest = conn->seq_acked = conn_isn(t, conn, c);
	conn->recover = conn->seq_acked;

	b = conn_bucket(t, gaddr, gport, raddr, rport);
	conn->next = t->bucket[b];
	t->bucket[b] = conn_index(t, conn);
	t->used++;
	c->cnt.tcp_conns++;
	return conn;
}

/**
 * list_remove() - take a connection off a pending list
 * @t:		table
 * @head:	list head
 * @idx:	connection index
 * @link:	offset of the list link in struct tcp_conn
 */
static void list_remove(struct tcp_table *t, int32_t *head, int32_t idx,
			size_t link)
{
	int32_t *pp = head;

	while (*pp >= 0 && *pp != idx)
		pp = (int32_t *)((char *)&t->c[*pp] + link);
	if (*pp == idx)
		*pp = *(int32_t *)((char *)&t->c[idx] + link);
}

/**
 * conn_free() - close a connection's socket and free its entry
 * @c:		execution context
 * @conn:	connection
 * @rst:	reset the remote (SO_LINGER 0) instead of closing gracefully
 */
static void conn_free(struct ctx *c, struct tcp_conn *conn, bool rst)
{
	struct tcp_table *t = c->tcp;
	int32_t idx = conn_index(t, conn), *pp;
	uint32_t b = conn_bucket(t, &conn->gaddr, conn->gport, &conn->raddr,
				 conn->rport);

	for (pp = &t->bucket[b]; *pp >= 0 && *pp != idx; pp = &t->c[*pp].next)
		;
	if (*pp == idx)
		*pp = conn->next;
	if (conn->flags & F_ACK_LISTED)
		list_remove(t, &t->ack_list, idx,
			    offsetof(struct tcp_conn, next_pending));
	if (conn->flags & F_TX_WAIT)
		list_remove(t, &t->wait_list, idx,
			    offsetof(struct tcp_conn, next_wait));
	if (t->wb_conn == conn) {
		t->wb_conn = NULL;
		t->wb_n = 0;
		t->wb_len = 0;
	}

	if (conn->fd >= 0) {
		if (rst) {
			struct linger l = { 1, 0 };

			setsockopt(conn->fd, SOL_SOCKET, SO_LINGER, &l,
				   sizeof(l));
		}
		close(conn->fd);
	}
	conn->fd = -1;
	conn->state = CONN_FREE;
	conn->next = t->free;
	t->free = idx;
	t->used--;
}

/**
 * conn_epoll() - set the epoll events of a connection's socket
 * @c:		execution context
 * @conn:	connection
 * @events:	events wanted (edge-triggered)
 */
static void conn_epoll(struct ctx *c, struct tcp_conn *conn, uint32_t events)
{
	struct epoll_event ev = {
		.events = events | EPOLLET | EPOLLRDHUP,
		.data.u64 = epref(EPREF_TCP, conn_index(c->tcp, conn)),
	};

	if (conn->events == events)
		return;
	epoll_ctl(c->epfd, conn->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD,
		  conn->fd, &ev);
	conn->events = events;
}

/**
 * link_mss() - largest segment the guest's link carries
 * @c:		execution context
 * @v6:		IPv6
 *
 * Return: MSS for the guest's MTU
 */
static uint16_t link_mss(const struct ctx *c, bool v6)
{
	uint32_t mtu = c->conf.mtu ? c->conf.mtu : 1500;
	uint32_t mss = mtu - (v6 ? IP6_HLEN : IP4_HLEN) - TCP_HLEN;

	return mss > 0xffff ? 0xffff : (uint16_t)mss;
}

/**
 * sock_room() - payload bytes the host socket can accept now
 * @conn:	connection
 *
 * SO_MEMINFO gives the send buffer and what is queued in it in the
 * kernel's accounting, which counts buffer overhead too: with small
 * buffers (a lossy path fragments them) that is half of it.  SIOCOUTQ gives
 * the payload queued, so their ratio turns free memory into payload room.
 * Advertising more than the socket takes would make the guest send data
 * we can only drop, so an eighth is kept back as well.
 *
 * Return: bytes
 */
static uint32_t sock_room(const struct tcp_conn *conn)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t sl = sizeof(mi);
	uint64_t room, queued;
	int outq = 0;

	if (getsockopt(conn->fd, SOL_SOCKET, SO_MEMINFO, mi, &sl) ||
	    sl < sizeof(uint32_t) * (SK_MEMINFO_WMEM_QUEUED + 1))
		return 0;
	queued = mi[SK_MEMINFO_WMEM_QUEUED];
	if (queued >= mi[SK_MEMINFO_SNDBUF])
		return 0;
	room = mi[SK_MEMINFO_SNDBUF] - queued;
	if (queued && !ioctl(conn->fd, SIOCOUTQ, &outq) && outq > 0 &&
	    (uint64_t)outq < queued)
		room = room * (uint64_t)outq / queued;
	else
		room /= 2;	/* nothing queued to measure the overhead by */
	room -= room / 8;
	return room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
}

/**
 * tcp_sock_opts() - options of every connection's host socket
 * @fd:		socket
 *
 * The window the guest sees is the send buffer's room, and the kernel only
 * grows that buffer with the congestion window, which never grows while the
 * guest's window is what limits the flow: so the buffer is set as large as
 * net.core.wmem_max allows from the start.  Memory is used only by data
 * actually queued.
 */
static void tcp_sock_opts(int fd)
{
	int one = 1, big = INT32_MAX;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
}

/**
 * tcp_send_seg() - send a segment without data to the guest
 * @c:		execution context
 * @conn:	connection
 * @flags:	TH_* flags
 * @seq:	sequence number
 * @room:	window to advertise, bytes
 *
 * SYNs carry our MSS and window scale (only if the guest offered one, on a
 * SYN-ACK).
 *
 * Return: 0 if queued, -1 if the queue to the VMM is full
 */
static int tcp_send_seg(struct ctx *c, struct tcp_conn *conn, uint8_t flags,
			uint32_t seq, uint32_t room)
{
	bool v6 = !inany_is4(&conn->raddr);
	uint8_t *l4 = ip_tx_l4(c, v6, TCP_HLEN + TCP_SYN_OPTLEN);
	uint16_t mss = 0;
	int ws = -1;
	size_t len;

	if (!l4)
		return -1;
	if (flags & TH_SYN) {
		mss = link_mss(c, v6);
		/* On a SYN-ACK, only if the guest offered scaling */
		if (!(flags & TH_ACK) || conn->ws_ours)
			ws = conn->ws_ours;
		room = room > 0xffff ? 0xffff : room;	/* never scaled */
	}
	conn->wnd_adv = room;

	len = tcp_hdr_build(l4, conn->rport, conn->gport, seq,
			    (flags & TH_ACK) ? conn->seq_from_guest : 0, flags,
			    (flags & TH_SYN) ? (uint16_t)room :
			    wnd_to_guest(room, conn->ws_ours), mss, ws);
	ip_tx_send(c, l4, &conn->raddr, &conn->gaddr, IPPROTO_TCP, len, NULL);
	return 0;
}

/**
 * tcp_rst_reply() - reset a guest segment that has no connection
 * @c:		execution context
 * @m:		addresses of the segment
 * @s:		the segment
 */
static void tcp_rst_reply(struct ctx *c, const struct l4_meta *m,
			  const struct tcp_seg *s)
{
	uint8_t *l4;
	uint32_t seq = 0, ack = 0;
	uint8_t flags = TH_RST;
	size_t len;

	if (s->flags & TH_RST)
		return;
	l4 = ip_tx_l4(c, m->v6, TCP_HLEN);
	if (!l4)
		return;
	/* RFC 9293 3.10.7.1 */
	if (s->flags & TH_ACK) {
		seq = s->ack;
	} else {
		ack = s->seq + (uint32_t)s->payload.len +
		      !!(s->flags & TH_SYN) + !!(s->flags & TH_FIN);
		flags |= TH_ACK;
	}
	len = tcp_hdr_build(l4, s->dport, s->sport, seq, ack, flags, 0, 0, -1);
	ip_tx_send(c, l4, &m->dst, &m->src, IPPROTO_TCP, len, NULL);
}

/**
 * tcp_send_ctl() - send a segment without data, the window the socket's room
 * @c:		execution context
 * @conn:	connection
 * @flags:	TH_* flags
 * @seq:	sequence number
 *
 * Return: 0 if queued, -1 if the queue to the VMM is full
 */
static int tcp_send_ctl(struct ctx *c, struct tcp_conn *conn, uint8_t flags,
			uint32_t seq)
{
	uint32_t room = 0;

	if (!(flags & TH_RST) && conn->fd >= 0 && conn->state != CONN_CONNECTING)
		room = sock_room(conn);
	return tcp_send_seg(c, conn, flags, seq, room);
}

/**
 * tcp_send_dupacks() - duplicate ACKs: the same ACK and the same window
 * @c:		execution context
 * @conn:	connection
 * @n:		how many
 *
 * A window that changed makes an ACK a window update, not a duplicate, and
 * only duplicates make the guest retransmit at once (fast retransmit).
 */
static void tcp_send_dupacks(struct ctx *c, struct tcp_conn *conn, int n)
{
	while (n-- && !tcp_send_seg(c, conn, TH_ACK, conn->seq_to_guest,
				    conn->wnd_adv))
		;
}

/**
 * tcp_reset() - reset both sides and free the connection
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_reset(struct ctx *c, struct tcp_conn *conn)
{
	if (conn->state != CONN_CONNECTING)
		tcp_send_ctl(c, conn, TH_RST | TH_ACK, conn->seq_to_guest);
	else
		tcp_send_ctl(c, conn, TH_RST | TH_ACK, conn->seq_acked);
	conn_free(c, conn, true);
}

/**
 * tcp_ack_later() - owe the guest an ACK, sent once per loop iteration
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_ack_later(struct ctx *c, struct tcp_conn *conn)
{
	struct tcp_table *t = c->tcp;

	/* Owing an ACK and being on the list differ: a data segment pays
	 * the debt, but the connection stays listed until the next flush.
	 */
	conn->flags |= F_ACK_DUE;
	if (conn->flags & F_ACK_LISTED)
		return;
	conn->flags |= F_ACK_LISTED;
	conn->next_pending = t->ack_list;
	t->ack_list = conn_index(t, conn);
}

/**
 * tcp_wait_tx() - resume sending when the VMM takes frames again
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_wait_tx(struct ctx *c, struct tcp_conn *conn)
{
	struct tcp_table *t = c->tcp;

	if (conn->flags & F_TX_WAIT)
		return;
	conn->flags |= F_TX_WAIT;
	conn->next_wait = t->wait_list;
	t->wait_list = conn_index(t, conn);
}

/**
 * tcp_update_clamp() - push the guest's window into the socket
 * @conn:	connection
 *
 * TCP_WINDOW_CLAMP makes the remote see the guest's receive window, so a
 * slow guest slows the remote down instead of filling the pod's socket.
 * Only changes by more than a quarter are pushed: one system call per ACK
 * would cost more than it tells.
 */
static void tcp_update_clamp(struct tcp_conn *conn)
{
	uint32_t w = conn->wnd_guest, diff;
	int v;

	if (w < 65536)
		w = 65536;
	diff = w > conn->clamp ? w - conn->clamp : conn->clamp - w;
	if (conn->clamp && diff < conn->clamp / 4)
		return;
	v = (int)(w > INT32_MAX ? INT32_MAX : w);
	if (!setsockopt(conn->fd, IPPROTO_TCP, TCP_WINDOW_CLAMP, &v, sizeof(v)))
		conn->clamp = w;
}

/**
 * tcp_set_peek_off() - make the next peek start after the bytes in flight
 * @conn:	connection
 */
static void tcp_set_peek_off(struct tcp_conn *conn)
{
	int off = (int)(conn->seq_to_guest - conn->seq_acked);

	setsockopt(conn->fd, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off));
}

/**
 * tcp_rewind() - retransmit: send again from the first unacknowledged byte
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_rewind(struct ctx *c, struct tcp_conn *conn)
{
	if (conn->flags & F_FIN_SENT && !(conn->flags & F_FIN_ACKED))
		conn->flags &= ~F_FIN_SENT;
	conn->recover = conn->seq_to_guest;
	conn->rtt_start = 0;		/* Karn: no samples from resent data */
	conn->seq_to_guest = conn->seq_acked;
	if (c->tcp->peek_off)
		tcp_set_peek_off(conn);
	conn->dup_acks = 0;
	conn->flags &= ~F_DRAINED;	/* what was in flight is unsent again */
	tcp_send_data(c, conn);
}

/**
 * tcp_timer_arm() - (re)start or stop the retransmission timer
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_timer_arm(struct ctx *c, struct tcp_conn *conn)
{
	if (conn->seq_to_guest == conn->seq_acked)
		conn->rto_at = 0;
	else
		conn->rto_at = now_ms(c) + conn->rto_ms;
}

/**
 * tcp_send_fin() - send our FIN once all remote data went to the guest
 * @c:		execution context
 * @conn:	connection
 */
static void tcp_send_fin(struct ctx *c, struct tcp_conn *conn)
{
	if (tcp_send_ctl(c, conn, TH_FIN | TH_ACK, conn->seq_to_guest)) {
		tcp_wait_tx(c, conn);
		return;
	}
	conn->seq_to_guest++;
	conn->flags |= F_FIN_SENT;
	tcp_timer_arm(c, conn);
}

/**
 * tcp_peek() - peek new socket data into frames reserved on the link
 * @c:		execution context
 * @conn:	connection
 * @f:		the reserved frames
 * @seg:	payload bytes per segment
 * @nseg:	number of frames reserved
 * @budget:	bytes the guest's window takes: the last frame may be short
 *
 * Return: new bytes peeked, 0 at EOF, -1 with errno set (EAGAIN: none)
 */
static ssize_t tcp_peek(struct ctx *c, struct tcp_conn *conn,
			const struct link_frame *f, size_t seg, int nseg,
			size_t budget)
{
	struct iovec iov[TCP_PEEK_IOV];
	struct msghdr mh = { .msg_iov = iov };
	int i, n = 0;

	if (!c->tcp->peek_off) {
		iov[n].iov_base = c->tcp->discard;
		iov[n++].iov_len = conn->seq_to_guest - conn->seq_acked;
	}
	/* The kernel advances the peek offset by what it copied: never
	 * peek more than will be sent.  A frame built in the guest's own
	 * buffers may take several entries.
	 */
	for (i = 0; i < nseg && budget; i++) {
		size_t want = budget < seg ? budget : seg;
		unsigned int k;

		if (n + f[i].niov > TCP_PEEK_IOV)
			break;
		budget -= want;
		for (k = 0; k < f[i].niov && want; k++) {
			iov[n].iov_base = f[i].iov[k].iov_base;
			iov[n].iov_len = f[i].iov[k].iov_len < want ?
					 f[i].iov[k].iov_len : want;
			want -= iov[n++].iov_len;
		}
	}
	mh.msg_iovlen = n;
	n = (int)recvmsg(conn->fd, &mh, MSG_PEEK | MSG_DONTWAIT);
	if (n > 0 && !c->tcp->peek_off) {
		/* Only bytes already in flight: nothing new yet.  EOF shows
		 * once the guest acknowledged them all and the peek is empty.
		 */
		n -= (int)(conn->seq_to_guest - conn->seq_acked);
		if (n <= 0) {
			errno = EAGAIN;
			return -1;
		}
	}
	return n;
}

/**
 * tcp_send_data() - send the guest whatever its window allows
 * @c:		execution context
 * @conn:	connection
 *
 * MSS-sized frames are reserved on the link, the socket is peeked into
 * their payload areas in one recvmsg(), then headers are written for the
 * segments that got data.  Where the link carries segmentation offload,
 * frames hold as many MSS as one IP packet can instead, and the guest
 * sees them cut at its MSS; where it takes partial checksums, the payload
 * is not summed here.
 */
static void tcp_send_data(struct ctx *c, struct tcp_conn *conn)
{
	bool v6 = !inany_is4(&conn->raddr);
	size_t hlen = ip_l2l3_len(v6) + TCP_HLEN;
	uint32_t budget, mss = conn->mss_guest, room, seg;
	struct link_frame *f = c->tcp->frames;
	ssize_t n;
	int nseg, i;

	if (conn->state != CONN_ESTABLISHED ||
	    conn->flags & (F_FIN_SENT | F_DRAINED))
		return;

	budget = send_budget(conn->seq_acked, conn->seq_to_guest,
			     conn->wnd_guest);
	if (!c->tcp->peek_off) {
		/* Every peek copies the bytes in flight again: keep them to
		 * sixteen segments, within 256 KiB and 1 MiB (measured best
		 * at MTU 1500 and 65520 alike).
		 */
		uint32_t cap = 16 * mss, inflight;

		cap = cap < TCP_DISCARD_MIN ? TCP_DISCARD_MIN :
		      cap > TCP_DISCARD_SIZE ? TCP_DISCARD_SIZE : cap;
		inflight = conn->seq_to_guest - conn->seq_acked;
		budget = inflight >= cap ? 0 :
			 budget < cap - inflight ? budget : cap - inflight;
	}
	if (!budget)
		return;		/* the guest's next ACK opens the window */
	seg = link_tso_max(c, v6);
	seg = seg > mss ? seg - seg % mss : mss;
	if (seg > budget)
		seg = budget;

	nseg = (int)((budget + seg - 1) / seg);
	if (nseg > TCP_BATCH)
		nseg = TCP_BATCH;
	nseg = tx_reserve_frames(c, hlen, seg, nseg, f);
	if (!nseg) {
		tcp_wait_tx(c, conn);
		return;
	}

	n = tcp_peek(c, conn, f, seg, nseg, budget);
	if (n < 0) {
		/* Nothing new: the next EPOLLIN edge says when there is,
		 * until then guest segments need not ask the socket again.
		 */
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			conn->flags |= F_DRAINED;
		else
			tcp_reset(c, conn);
		return;
	}
	if (n == 0) {
		/* EOF, after everything was peeked: FIN follows the data */
		conn->flags |= F_HOST_EOF;
		tcp_send_fin(c, conn);
		return;
	}

	room = sock_room(conn);
	for (i = 0; n > 0; i++) {
		uint8_t *frame = f[i].l2;
		size_t plen = (size_t)n < seg ? (size_t)n : seg;
		uint8_t *l4 = frame + ip_l2l3_len(v6);
		struct link_offload o = { 0 };

		tcp_hdr_build(l4, conn->rport, conn->gport, conn->seq_to_guest,
			      conn->seq_from_guest,
			      TH_ACK | ((size_t)n == plen ? TH_PSH : 0),
			      wnd_to_guest(room, conn->ws_ours), 0, -1);
		ip_frame_fill_offload(c, frame, &conn->raddr, &conn->gaddr,
				      IPPROTO_TCP, TCP_HLEN + plen, &o);
		if (plen > mss) {
			o.gso_type = v6 ? VNET_GSO_TCPV6 : VNET_GSO_TCPV4;
			o.gso_size = (uint16_t)mss;
			o.hdr_len = (uint16_t)hlen;
		}
		tx_commit_frame(c, &f[i], plen, &o);
		conn->seq_to_guest += (uint32_t)plen;
		n -= (ssize_t)plen;
	}
	conn->wnd_adv = room;
	if (conn->flags & F_ACK_DUE)
		conn->flags &= ~F_ACK_DUE;	/* data carried the ACK */
	if (!conn->rtt_start && seq_ge(conn->seq_acked, conn->recover)) {
		conn->rtt_seq = conn->seq_to_guest;
		conn->rtt_start = now_ms(c) ? now_ms(c) : 1;
	}
	if (!conn->rto_at)
		tcp_timer_arm(c, conn);

	/* The window or the batch ran out, not the data: more next time */
	if (send_budget(conn->seq_acked, conn->seq_to_guest, conn->wnd_guest) &&
	    i == nseg)
		tcp_wait_tx(c, conn);
}

/**
 * tcp_send_pending() - send the guest new data, and our FIN once it is due
 * @c:		execution context
 * @conn:	connection
 *
 * The FIN goes here when the remote's EOF was seen but the FIN could not be
 * queued then, or was taken back by a retransmission.
 */
static void tcp_send_pending(struct ctx *c, struct tcp_conn *conn)
{
	tcp_send_data(c, conn);
	if (conn->state == CONN_ESTABLISHED && conn->flags & F_HOST_EOF &&
	    !(conn->flags & F_FIN_SENT) &&
	    conn->seq_to_guest == conn->seq_acked)
		tcp_send_fin(c, conn);
}

/**
 * tcp_guest_ack() - take the window and ACK of a guest segment
 * @c:		execution context
 * @conn:	connection
 * @s:		segment
 *
 * Return: true if the connection is still there
 */
static bool tcp_guest_ack(struct ctx *c, struct tcp_conn *conn,
			  const struct tcp_seg *s)
{
	uint32_t acked, wnd = (uint32_t)s->wnd << conn->ws_guest;
	bool dup;

	if (!(s->flags & TH_ACK))
		return true;
	if (!ack_fit(conn->seq_acked, conn->seq_to_guest, s->ack, &acked)) {
		tcp_ack_later(c, conn);	/* ACK of unsent data: re-sync */
		return true;
	}

	dup = !acked && !s->payload.len && wnd == conn->wnd_guest &&
	      conn->seq_to_guest != conn->seq_acked &&
	      !(s->flags & (TH_SYN | TH_FIN));
	conn->wnd_guest = wnd;
	if (conn->fd >= 0)
		tcp_update_clamp(conn);

	if (acked) {
		uint32_t data = acked;

		if (conn->flags & F_FIN_SENT &&
		    s->ack == conn->seq_to_guest) {
			conn->flags |= F_FIN_ACKED;
			data--;
		}
		while (data) {
			ssize_t n = recv(conn->fd, NULL, data,
					 MSG_TRUNC | MSG_DONTWAIT);

			if (n <= 0) {
				tcp_reset(c, conn);
				return false;
			}
			data -= (uint32_t)n;
		}
		conn->seq_acked = s->ack;
		conn->retries = 0;
		conn->dup_acks = 0;
		/* Without SO_PEEK_OFF, EOF shows only once nothing is in
		 * flight: the next peek may find it, with no event to say so
		 */
		if (!c->tcp->peek_off)
			conn->flags &= ~F_DRAINED;
		if (conn->rtt_start && seq_ge(s->ack, conn->rtt_seq)) {
			uint32_t r = (uint32_t)(now_ms(c) - conn->rtt_start);

			conn->rto_ms = rto_sample(&conn->srtt_us,
						  &conn->rttvar_us,
						  r * 1000) / 1000;
			conn->rtt_start = 0;
		} else {
			/* Progress ends any backoff (as Linux does) */
			conn->rto_ms = conn->srtt_us ?
				       rto_of(conn->srtt_us,
					      conn->rttvar_us) / 1000 :
				       TCP_RTO_INIT_MS;
		}
		tcp_timer_arm(c, conn);
	} else if (dup && seq_ge(conn->seq_acked, conn->recover) &&
		   ++conn->dup_acks == TCP_DUP_ACKS) {
		tcp_rewind(c, conn);
		return conn->state != CONN_FREE;
	}
	return true;
}

/**
 * tcp_flush_writes() - write the guest data gathered from a batch of frames
 * @c:		execution context
 *
 * In-order payloads of one connection are gathered while the frames of a
 * read from the VMM are dispatched, and written with one sendmsg(): a guest
 * with a 1500-byte MTU would otherwise cost a system call per segment.  The
 * payloads point into the receive buffer, so this runs before that buffer
 * is reused.  Only the bytes the kernel accepted are acknowledged.
 */
void tcp_flush_writes(struct ctx *c)
{
	struct tcp_table *t = c->tcp;
	struct tcp_conn *conn = t->wb_conn;
	struct iovec iov[TCP_WRITE_IOV];
	struct msghdr mh = { .msg_iov = iov };
	uint32_t len = t->wb_len, chunk = 0, done = 0;
	int i = 0, n_in = t->wb_n;
	size_t k = 0, r;
	ssize_t n;

	if (!conn)
		return;
	t->wb_conn = NULL;
	t->wb_n = 0;
	t->wb_len = 0;

	/* Payloads the link left in the guest's memory may take several
	 * buffers each: as many writes as IOV_MAX needs, usually one.
	 */
	while (i < n_in) {
		r = link_iov_resolve(c, &t->wb_iov[i], iov + k,
				     TCP_WRITE_IOV - k);
		if (r) {
			k += r;
			chunk += (uint32_t)t->wb_iov[i++].iov_len;
			if (i < n_in)
				continue;
		}
		if (!k)
			break;		/* cannot be: a frame has fewer */
		mh.msg_iovlen = k;
		n = sendmsg(conn->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    !done) {
				tcp_reset(c, conn);
				return;
			}
			n = 0;
		}
		done += (uint32_t)n;
		if ((uint32_t)n < chunk)
			break;
		k = 0;
		chunk = 0;
	}
	conn->seq_from_guest += done;
	tcp_ack_later(c, conn);
	if (done < len) {
		/* Socket full: the rest comes back as a retransmission once
		 * the window we advertise opens again.
		 */
		conn->flags |= F_WANT_ROOM | F_DROPPED;
		conn_epoll(c, conn, conn->events | EPOLLOUT);
	}
}

/**
 * tcp_guest_data() - take guest data for the socket
 * @c:		execution context
 * @conn:	connection
 * @s:		segment
 */
static void tcp_guest_data(struct ctx *c, struct tcp_conn *conn,
			   const struct tcp_seg *s)
{
	struct tcp_table *t = c->tcp;
	uint32_t skip, len = (uint32_t)s->payload.len;
	uint32_t expected = conn->seq_from_guest;

	if (conn->flags & F_GUEST_FIN) {
		if (len || s->flags & TH_FIN)
			tcp_ack_later(c, conn);
		return;
	}
	if (t->wb_conn == conn)
		expected += t->wb_len;

	switch (seg_fit(expected, s->seq, len, &skip)) {
	case SEG_OLD:
	case SEG_FUTURE:
		if (t->wb_conn == conn) {
			tcp_flush_writes(c);
			if (conn->state == CONN_FREE)
				return;
		}
		/* A duplicate or a keepalive probe (one byte before the
		 * expected one) is answered here: the remote never sees it.
		 * A hole gets duplicate ACKs at once, so the guest retransmits
		 * fast instead of waiting for its timer.  Nothing is buffered.
		 */
		if (seq_lt(s->seq, expected))
			tcp_send_ctl(c, conn, TH_ACK, conn->seq_to_guest);
		else if (len || s->flags & TH_FIN)
			tcp_send_dupacks(c, conn, 1);
		return;
	case SEG_IN_ORDER:
		break;
	}

	if (len > skip) {
		if (t->wb_conn != conn || t->wb_n == TCP_WBATCH) {
			tcp_flush_writes(c);
			if (conn->state == CONN_FREE)
				return;
		}
		t->wb_iov[t->wb_n].iov_base = (void *)(s->payload.data + skip);
		t->wb_iov[t->wb_n++].iov_len = len - skip;
		t->wb_len += len - skip;
		t->wb_conn = conn;
	}

	if (s->flags & TH_FIN) {
		tcp_flush_writes(c);
		/* A FIN counts once everything before it is in the socket */
		if (conn->state == CONN_FREE ||
		    conn->seq_from_guest != s->seq + len)
			return;
		shutdown(conn->fd, SHUT_WR);
		conn->flags |= F_GUEST_FIN;
		conn->seq_from_guest++;
		tcp_ack_later(c, conn);
	}
}

/**
 * tcp_maybe_close() - free the connection once both sides are done
 * @c:		execution context
 * @conn:	connection
 *
 * Return: true if it was freed
 */
static bool tcp_maybe_close(struct ctx *c, struct tcp_conn *conn)
{
	if ((conn->flags & (F_GUEST_FIN | F_FIN_ACKED)) ==
	    (F_GUEST_FIN | F_FIN_ACKED)) {
		if (conn->flags & F_ACK_DUE) {
			tcp_send_ctl(c, conn, TH_ACK, conn->seq_to_guest);
			conn->flags &= ~F_ACK_DUE;
		}
		conn_free(c, conn, false);
		return true;
	}
	return false;
}

/**
 * tcp_conn_from_guest_syn() - a guest SYN: open a host socket and connect
 * @c:		execution context
 * @m:		addresses
 * @s:		the SYN
 */
static void tcp_conn_from_guest_syn(struct ctx *c, const struct l4_meta *m,
				    const struct tcp_seg *s)
{
	struct sockaddr_storage sa;
	struct tcp_conn *conn;
	socklen_t sl;

	if (s->flags & TH_ACK) {
		tcp_rst_reply(c, m, s);
		return;
	}
	/* Multicast, broadcast, link-local: nothing to connect to */
	if (m->v6 ? (IN6_IS_ADDR_MULTICAST(&m->dst) ||
		     IN6_IS_ADDR_LINKLOCAL(&m->dst)) :
		    (IN_MULTICAST(ntohl(inany_to4(&m->dst).s_addr)) ||
		     inany_to4(&m->dst).s_addr == INADDR_BROADCAST)) {
		c->cnt.drop_tcp++;
		return;
	}

	conn = conn_new(c, &m->src, s->sport, &m->dst, s->dport);
	if (!conn) {
		tcp_rst_reply(c, m, s);
		return;
	}
	if (m->v6)
		gaddr_seen6(c, &m->src);
	conn->seq_init_guest = s->seq;
	conn->seq_from_guest = s->seq + 1;
	conn->mss_guest = s->mss ? s->mss : 536;
	if (conn->mss_guest > link_mss(c, m->v6))
		conn->mss_guest = link_mss(c, m->v6);
	if (s->has_ws) {
		conn->ws_guest = s->ws;
	} else {
		conn->ws_guest = 0;
		conn->ws_ours = 0;
	}
	conn->wnd_guest = s->wnd;	/* SYN windows are never scaled */
	conn->state = CONN_CONNECTING;

	conn->fd = socket(m->v6 ? AF_INET6 : AF_INET,
			  SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (conn->fd < 0) {
		c->cnt.drop_sock++;
		warn_rl(c->now.tv_sec, "TCP socket: %m");
		tcp_rst_reply(c, m, s);
		conn_free(c, conn, false);
		return;
	}
	tcp_sock_opts(conn->fd);
	if (s->mss) {
		int mss = s->mss;

		setsockopt(conn->fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss));
	}
	outbound_sockaddr(c, &m->dst, s->dport, &sa, &sl);
	if (outbound_bind(c, conn->fd, &sa) ||
	    (connect(conn->fd, (struct sockaddr *)&sa, sl) &&
	     errno != EINPROGRESS)) {
		tcp_connect_failed(c, conn, errno);
		return;
	}
	conn_epoll(c, conn, EPOLLOUT);
}

/**
 * tcp_connect_failed() - answer the guest's SYN for a failed connect()
 * @c:		execution context
 * @conn:	connection in CONN_CONNECTING, freed here
 * @err:	the error
 *
 * As a real network would answer: the host refused (RST), or nothing
 * answered on the way (ICMP unreachable), so the guest's connect() fails at
 * once, and with the right error.
 */
static void tcp_connect_failed(struct ctx *c, struct tcp_conn *conn, int err)
{
	debug("TCP connect to port %u failed: %s", conn->rport, strerror(err));
	if (err == ECONNREFUSED) {
		tcp_send_ctl(c, conn, TH_RST | TH_ACK, 0);
	} else {
		uint8_t l4[8];

		wr16(l4, conn->gport);
		wr16(l4 + 2, conn->rport);
		wr32(l4 + 4, conn->seq_init_guest);
		icmp_unreach(c, &conn->gaddr, &conn->raddr, IPPROTO_TCP, l4,
			     false);
	}
	conn_free(c, conn, false);
}

/**
 * tcp_connected() - the host connect() finished: answer the guest's SYN
 * @c:		execution context
 * @conn:	connection in CONN_CONNECTING
 */
static void tcp_connected(struct ctx *c, struct tcp_conn *conn)
{
	int err = 0;
	socklen_t sl = sizeof(err);

	getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &err, &sl);
	if (err) {
		tcp_connect_failed(c, conn, err);
		return;
	}
	conn->state = CONN_SYNACK_SENT;
	if (c->tcp->peek_off)
		tcp_set_peek_off(conn);		/* 0: enables the offset */
	conn_epoll(c, conn, EPOLLIN);
	tcp_send_ctl(c, conn, TH_SYN | TH_ACK, conn->seq_acked);
	conn->seq_to_guest = conn->seq_acked + 1;
	tcp_timer_arm(c, conn);
}

/**
 * tcp_input() - a TCP segment from the guest
 * @c:		execution context
 * @m:		addresses
 * @l4:		TCP header and payload (checksum already verified)
 */
void tcp_input(struct ctx *c, const struct l4_meta *m, const struct pkt *l4)
{
	struct tcp_conn *conn;
	struct tcp_seg s;

	/* --no-tcp: silently, as passt does; no socket, so no reply */
	if (c->conf.no_tcp) {
		c->cnt.drop_disabled++;
		return;
	}
	if (tcp_seg_parse(l4, &s)) {
		c->cnt.drop_tcp++;
		return;
	}
	if (inany_is4(&m->src) && !inany_to4(&m->src).s_addr) {
		c->cnt.drop_src++;
		return;
	}

	conn = conn_lookup(c->tcp, &m->src, s.sport, &m->dst, s.dport);
	if (!conn) {
		if (s.flags & TH_SYN)
			tcp_conn_from_guest_syn(c, m, &s);
		else
			tcp_rst_reply(c, m, &s);
		return;
	}
	conn->last = c->now.tv_sec;

	if (s.flags & TH_RST) {
		/* RFC 5961: only a reset at the expected sequence counts */
		if (s.seq == conn->seq_from_guest ||
		    conn->state == CONN_SYN_SENT)
			conn_free(c, conn, true);
		return;
	}

	switch (conn->state) {
	case CONN_CONNECTING:
		return;		/* SYN retransmission: connect() still runs */
	case CONN_SYN_SENT:
		if ((s.flags & (TH_SYN | TH_ACK)) != (TH_SYN | TH_ACK) ||
		    s.ack != conn->seq_to_guest) {
			tcp_rst_reply(c, m, &s);
			return;
		}
		conn->seq_init_guest = s.seq;
		conn->seq_from_guest = s.seq + 1;
		conn->seq_acked = s.ack;
		conn->mss_guest = s.mss ? s.mss : 536;
		if (conn->mss_guest > link_mss(c, m->v6))
			conn->mss_guest = link_mss(c, m->v6);
		conn->ws_guest = s.has_ws ? s.ws : 0;
		if (!s.has_ws)
			conn->ws_ours = 0;
		conn->wnd_guest = s.wnd;
		conn->state = CONN_ESTABLISHED;
		conn->rto_at = 0;
		conn_epoll(c, conn, EPOLLIN);
		tcp_send_ctl(c, conn, TH_ACK, conn->seq_to_guest);
		tcp_send_data(c, conn);
		return;
	case CONN_SYNACK_SENT:
		if (s.flags & TH_SYN) {
			if (s.seq == conn->seq_init_guest)	/* lost SYN-ACK */
				tcp_send_ctl(c, conn, TH_SYN | TH_ACK,
					     conn->seq_acked);
			return;
		}
		if (!(s.flags & TH_ACK) || s.ack != conn->seq_to_guest) {
			tcp_rst_reply(c, m, &s);
			return;
		}
		conn->seq_acked = s.ack;
		conn->state = CONN_ESTABLISHED;
		conn->rto_at = 0;
		conn->rto_ms = TCP_RTO_INIT_MS;
		break;
	case CONN_ESTABLISHED:
		if (s.flags & TH_SYN) {
			/* The guest reuses the port: this one is over */
			if (s.seq != conn->seq_init_guest) {
				conn_free(c, conn, true);
				tcp_conn_from_guest_syn(c, m, &s);
			}
			return;
		}
		break;
	}

	if (!tcp_guest_ack(c, conn, &s))
		return;
	tcp_guest_data(c, conn, &s);
	if (conn->state == CONN_FREE || tcp_maybe_close(c, conn))
		return;
	tcp_send_pending(c, conn);
}

/**
 * tcp_sock_ready() - events on a connection's host socket
 * @c:		execution context
 * @idx:	connection index
 * @events:	epoll events
 */
void tcp_sock_ready(struct ctx *c, uint32_t idx, uint32_t events)
{
	struct tcp_conn *conn;

	if (idx >= c->tcp->n)
		return;
	conn = &c->tcp->c[idx];
	if (conn->state == CONN_FREE)
		return;
	conn->last = c->now.tv_sec;

	if (conn->state == CONN_CONNECTING) {
		if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			tcp_connected(c, conn);
		return;
	}
	if (events & EPOLLERR) {
		tcp_reset(c, conn);
		return;
	}
	if (conn->state != CONN_ESTABLISHED)
		return;
	if (events & EPOLLOUT && conn->flags & F_WANT_ROOM) {
		conn->flags &= ~F_WANT_ROOM;
		conn_epoll(c, conn, EPOLLIN);
		if (tcp_send_ctl(c, conn, TH_ACK, conn->seq_to_guest)) {
			tcp_ack_later(c, conn);
		} else if (conn->flags & F_DROPPED) {
			/* Guest data beyond our ACK was not taken: duplicate
			 * ACKs have it resent now, not at its next timeout.
			 */
			tcp_send_dupacks(c, conn, 3);
			conn->flags &= ~F_DROPPED;
		}
	}
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) {
		conn->flags &= ~F_DRAINED;
		tcp_send_data(c, conn);
	}
}

/**
 * tcp_flush_acks() - send the ACKs owed to the guest, one per connection
 * @c:		execution context
 */
void tcp_flush_acks(struct ctx *c)
{
	struct tcp_table *t = c->tcp;

	while (t->ack_list >= 0) {
		struct tcp_conn *conn = &t->c[t->ack_list];

		t->ack_list = conn->next_pending;
		conn->next_pending = -1;
		conn->flags &= ~F_ACK_LISTED;
		if (!(conn->flags & F_ACK_DUE))
			continue;
		conn->flags &= ~F_ACK_DUE;
		if (tcp_send_ctl(c, conn, TH_ACK, conn->seq_to_guest)) {
			tcp_ack_later(c, conn);	/* the VMM is full: later */
			return;
		}
		/* A closed window is reopened on EPOLLOUT */
		if (!wnd_to_guest(conn->wnd_adv, conn->ws_ours) &&
		    !(conn->flags & F_WANT_ROOM)) {
			conn->flags |= F_WANT_ROOM;
			conn_epoll(c, conn, conn->events | EPOLLOUT);
		}
	}
}

/**
 * tcp_tx_waiting() - are connections waiting to send to the guest
 * @c:		execution context
 *
 * Return: true if tcp_tx_resume() has work
 */
bool tcp_tx_waiting(const struct ctx *c)
{
	return c->tcp->wait_list >= 0;
}

/**
 * tcp_tx_resume() - the VMM takes frames again: resume waiting senders
 * @c:		execution context
 */
void tcp_tx_resume(struct ctx *c)
{
	struct tcp_table *t = c->tcp;
	int32_t list = t->wait_list;

	t->wait_list = -1;
	while (list >= 0) {
		struct tcp_conn *conn = &t->c[list];

		list = conn->next_wait;
		conn->next_wait = -1;
		conn->flags &= ~F_TX_WAIT;
		if (conn->state == CONN_ESTABLISHED)
			tcp_send_pending(c, conn);
	}
}

/**
 * tcp_conn_timer() - retransmission and expiry of one connection
 * @c:		execution context
 * @conn:	connection in use
 */
static void tcp_conn_timer(struct ctx *c, struct tcp_conn *conn)
{
	time_t idle = c->now.tv_sec - conn->last;

	if ((conn->state == CONN_SYN_SENT ||
	     conn->state == CONN_SYNACK_SENT) && idle > TCP_HANDSHAKE_TIMEOUT) {
		tcp_reset(c, conn);
		return;
	}
	/* Both sides closed but the last ACK never came.  A connection
	 * closed in one direction only is left alone: the other one works.
	 */
	if ((conn->flags & (F_GUEST_FIN | F_FIN_SENT)) ==
	    (F_GUEST_FIN | F_FIN_SENT) && idle > TCP_FIN_TIMEOUT) {
		tcp_reset(c, conn);
		return;
	}
	if (!conn->rto_at || now_ms(c) < conn->rto_at)
		return;
	if (c->link.blocked) {
		/* Queued for a VMM that does not read: not lost, not late */
		conn->rto_at = now_ms(c) + conn->rto_ms;
		return;
	}

	if (++conn->retries > TCP_RETRIES_MAX) {
		debug("TCP: guest stopped acknowledging, resetting");
		tcp_reset(c, conn);
		return;
	}
	conn->rto_ms = conn->rto_ms * 2 > TCP_RTO_MAX_US / 1000 ?
		       TCP_RTO_MAX_US / 1000 : conn->rto_ms * 2;
	switch (conn->state) {
	case CONN_SYN_SENT:
		tcp_send_ctl(c, conn, TH_SYN, conn->seq_acked);
		break;
	case CONN_SYNACK_SENT:
		tcp_send_ctl(c, conn, TH_SYN | TH_ACK, conn->seq_acked);
		break;
	case CONN_ESTABLISHED:
		tcp_rewind(c, conn);
		break;
	}
	if (conn->state != CONN_FREE)
		conn->rto_at = now_ms(c) + conn->rto_ms;
}

/**
 * tcp_timer() - run the timers of every connection
 * @c:		execution context
 */
void tcp_timer(struct ctx *c)
{
	struct tcp_table *t = c->tcp;
	uint32_t i;

	for (i = 0; i < t->hiwater && t->used; i++)
		if (t->c[i].state != CONN_FREE)
			tcp_conn_timer(c, &t->c[i]);
}

/**
 * tcp_splice_local() - a pod process connects to a forwarded port on the
 *			pod's loopback: join it to the namespace's loopback
 * @c:		execution context, in namespace mode
 * @fd:		the accepted socket
 * @raddr:	its peer, a loopback address
 * @port:	the namespace's port
 *
 * Loopback to loopback needs no frames: the two sockets are spliced
 * (tcp/splice.c), as pasta does.
 */
static void tcp_splice_local(struct ctx *c, int fd,
			     const struct in6_addr *raddr, uint16_t port)
{
	int ns_fd = netns_connect_lo(c, !inany_is4(raddr), port);

	if (ns_fd < 0) {
		struct linger l = { 1, 0 };

		debug("local flow to port %u: %m", port);
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		close(fd);
		return;
	}
	c->cnt.tcp_spliced++;
	splice_join(c, fd, ns_fd, true);
}

/**
 * tcp_listener_ready() - a connection to a forwarded port
 * @c:		execution context
 * @idx:	listener index
 */
void tcp_listener_ready(struct ctx *c, uint32_t idx)
{
	struct tcp_table *t = c->tcp;

	if (idx < t->nlst)
		tcp_accept_fwd(c, &t->lst[idx]);
}

/**
 * tcp_accept_fwd() - take a connection to a forwarded port to the guest
 * @c:		execution context
 * @l:		the listener: a -t one, or one that follows the namespace's
 *		listeners (fwd_auto.c)
 */
void tcp_accept_fwd(struct ctx *c, const struct fwd_listener *l)
{
	struct tcp_table *t = c->tcp;
	struct sockaddr_storage sa;
	struct in6_addr raddr, gaddr;
	struct tcp_conn *conn;
	socklen_t sl = sizeof(sa);
	uint16_t rport, gport;
	int fd;

	fd = accept4(l->fd, (struct sockaddr *)&sa, &sl,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	inany_from_sockaddr(&sa, &raddr, &rport);
	if (fwd_guest_port(c, l, fd, &gport))
		goto refuse;

	if (c->splice && (IN6_IS_ADDR_LOOPBACK(&raddr) ||
			  (inany_is4(&raddr) &&
			   (ntohl(inany_to4(&raddr).s_addr) >> 24) == 127))) {
		tcp_splice_local(c, fd, &raddr, gport);
		return;
	}

	if (!c->link.up) {
		struct linger l = { 1, 0 };

		/* No guest to take it: refuse now, never leave it hanging */
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		close(fd);
		return;
	}

	if (inany_is4(&raddr)) {
		/* The pod's own addresses would be the guest's own: present
		 * connections from inside the pod as coming from the gateway.
		 */
		if (!c->conf.v4)
			goto refuse;
		gaddr = gaddr_inbound(c, false);
		if (inany_eq(&raddr, &gaddr) ||
		    (ntohl(inany_to4(&raddr).s_addr) >> 24) == 127)
			raddr = inany_from4(c->conf.gw4);
	} else {
		if (!c->conf.v6)
			goto refuse;
		gaddr = gaddr_inbound(c, true);
		if (inany_eq(&raddr, &c->conf.addr6) ||
		    inany_eq(&raddr, &gaddr) ||
		    IN6_IS_ADDR_LOOPBACK(&raddr) ||
		    IN6_IS_ADDR_LINKLOCAL(&raddr))
			raddr = c->conf.our_ll6;
	}

	conn = conn_new(c, &gaddr, gport, &raddr, rport);
	if (!conn)
		goto refuse;
	conn->fd = fd;
	conn->state = CONN_SYN_SENT;
	if (t->peek_off)
		tcp_set_peek_off(conn);		/* 0: enables the offset */
	conn->mss_guest = link_mss(c, !inany_is4(&raddr));
	tcp_sock_opts(fd);
	conn_epoll(c, conn, 0);
	tcp_send_ctl(c, conn, TH_SYN, conn->seq_acked);
	conn->seq_to_guest = conn->seq_acked + 1;
	tcp_timer_arm(c, conn);
	return;
refuse:
	{
		struct linger l = { 1, 0 };

		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		close(fd);
	}
}

/**
 * tcp_probe_peek_off() - does this kernel have SO_PEEK_OFF for TCP (6.9+)
 *
 * Return: true if it does
 */
static bool tcp_probe_peek_off(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), off = 0;
	bool ok;

	if (fd < 0)
		return false;
	ok = !setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off));
	close(fd);
	return ok;
}

/**
 * tcp_init() - size the connection table, probe the kernel, listen for -t
 * @c:		execution context
 *
 * Return: 0 on success, -1 on failure (logged)
 */
int tcp_init(struct ctx *c)
{
	struct tcp_table *t = calloc(1, sizeof(*t));
	uint32_t i;

	if (!t)
		goto nomem;
	c->tcp = t;
	t->n = c->conf.max_tcp;
	for (t->nbuckets = 1; t->nbuckets < t->n * 2; t->nbuckets <<= 1)
		;
	t->c = calloc(t->n, sizeof(*t->c));
	t->bucket = malloc(sizeof(*t->bucket) * t->nbuckets);
	if (!t->c || !t->bucket)
		goto nomem;
	for (i = 0; i < t->nbuckets; i++)
		t->bucket[i] = -1;
	for (i = 0; i < t->n; i++) {
		t->c[i].fd = -1;
		t->c[i].next = i + 1 < t->n ? (int32_t)i + 1 : -1;
	}
	t->free = 0;
	t->ack_list = t->wait_list = -1;
	if (getrandom(&t->isn_key, sizeof(t->isn_key), 0) < 0)
		t->isn_key = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL;

	t->peek_off = !c->conf.no_peek_off && tcp_probe_peek_off();
	if (!t->peek_off) {
		t->discard = malloc(TCP_DISCARD_SIZE);
		if (!t->discard)
			goto nomem;
		info("kernel without SO_PEEK_OFF for TCP: peeking from the "
		     "acknowledged byte");
	}
	/* fwd_listen() says why it fails */
	return fwd_listen(c, &c->conf.tcp_fwd, SOCK_STREAM, EPREF_TCP_LISTEN,
			  &t->lst, &t->nlst);
nomem:
	err("cannot size the TCP connection table: %m");
	return -1;
}

/**
 * tcp_guest_gone() - the VMM went away: reset every connection's remote
 * @c:		execution context
 */
void tcp_guest_gone(struct ctx *c)
{
	struct tcp_table *t = c->tcp;
	uint32_t i;

	for (i = 0; i < t->hiwater && t->used; i++)
		if (t->c[i].state != CONN_FREE)
			conn_free(c, &t->c[i], true);
	t->ack_list = t->wait_list = -1;
}

/**
 * tcp_count() - connections in use
 * @c:		execution context
 *
 * Return: number of connections
 */
unsigned int tcp_count(struct ctx *c)
{
	return c->tcp->used;
}
