// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - TCP: the table of connections, and their sockets
 *
 * There is no TCP stack here.  Each guest connection is one host socket; the
 * kernel segments, retransmits and controls congestion towards the remote,
 * and netshim only translates between the guest's segments and the socket
 * (tcp/README.md).  This room keeps the connections: a table sized at
 * start-up, looked up by 4-tuple, with the lists of connections owing the
 * guest an ACK or waiting for room on the link, and each one's socket.
 */
#include <stdlib.h>
#include <unistd.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/random.h>

#include "internal.h"
#include "tcp.h"
#include "net/flow.h"
#include "net/flowinfo.h"
#include "netshim/inany.h"
#include "netshim/log.h"

/**
 * tcp_now_ms() - loop time in milliseconds
 * @c:		execution context
 *
 * Return: milliseconds of CLOCK_MONOTONIC
 */
int64_t tcp_now_ms(const struct ctx *c)
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
int32_t conn_index(const struct tcp_table *t,
			  const struct tcp_conn *conn)
{
	return (int32_t)(conn - t->c);
}

/**
 * conn_hash() - hash of a connection key
 * @gaddr:	guest address
 * @gport:	guest port
 * @raddr:	remote address
 * @rport:	remote port
 *
 * Return: the hash, for the table's index
 */
static uint32_t conn_hash(const struct in6_addr *gaddr, uint16_t gport,
			  const struct in6_addr *raddr, uint16_t rport)
{
	return flow_key_hash(IPPROTO_TCP, gaddr, gport, raddr, rport);
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
struct tcp_conn *conn_lookup(struct tcp_table *t,
				    const struct in6_addr *gaddr,
				    uint16_t gport,
				    const struct in6_addr *raddr,
				    uint16_t rport)
{
	int32_t i = itable_first(&t->idx, conn_hash(gaddr, gport, raddr, rport));

	for (; i >= 0; i = itable_next(&t->idx, i)) {
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

	return h ^ (uint32_t)t->isn_key ^ (uint32_t)(tcp_now_ms(c) * 250);
}

/**
 * conn_new() - take a free connection and insert it with its key
 * @c:		execution context
 * @gaddr:	guest address
 * @gport:	guest port
 * @raddr:	remote address
 * @rport:	remote port
 * @qp:		queue pair its frames to the guest go to: a guest's
 *		connection, the one its SYN came in on; an inbound one,
 *		link_spread()'s, until the guest's answer says where it is
 *		handled
 *
 * Return: connection, or NULL if the table is full (counted)
 */
struct tcp_conn *conn_new(struct ctx *c, const struct in6_addr *gaddr,
				 uint16_t gport, const struct in6_addr *raddr,
				 uint16_t rport, uint8_t qp)
{
	struct tcp_table *t = c->tcp;
	int32_t slot = itable_take(&t->idx, conn_hash(gaddr, gport, raddr,
						      rport));
	struct tcp_conn *conn;

	if (slot < 0) {
		c->cnt.tcp_full++;
		warn_rl(c->now.tv_sec, "TCP connection table full (%u): "
			"resetting new connections; see --max-tcp", t->idx.n);
		return NULL;
	}
	conn = &t->c[slot];

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
	conn->seq_init_ours = conn->seq_acked;
	conn->born = c->now.tv_sec;
	conn->qp = qp;
	c->cnt.tcp_conns++;
	return conn;
}

/**
 * tcp_list_remove() - take a connection off a pending list
 * @t:		table
 * @head:	list head
 * @idx:	connection index
 * @link:	offset of the list link in struct tcp_conn
 */
static void tcp_list_remove(struct tcp_table *t, int32_t *head, int32_t idx,
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
void conn_free(struct ctx *c, struct tcp_conn *conn, bool rst)
{
	struct tcp_table *t = c->tcp;
	int32_t idx = conn_index(t, conn);

	itable_put(&t->idx, idx, conn_hash(&conn->gaddr, conn->gport,
					   &conn->raddr, conn->rport));
	if (conn->flags & F_ACK_LISTED)
		tcp_list_remove(t, &t->ack_list, idx,
			    offsetof(struct tcp_conn, next_pending));
	if (conn->flags & F_TX_WAIT)
		tcp_list_remove(t, &t->wait_list, idx,
			    offsetof(struct tcp_conn, next_wait));
	if (t->wb_conn == conn) {
		t->wb_conn = NULL;
		t->wb_n = 0;
		t->wb_len = 0;
	}
	tcp_ooo_release(t, conn);

	if (conn->fd >= 0) {
		if (rst) {
			struct linger l = { 1, 0 };

			setsockopt(conn->fd, SOL_SOCKET, SO_LINGER, &l,
				   sizeof(l));
		} else {
			/* Unread data would make close() send a RST */
			conn_drop_acked(conn);
		}
		close(conn->fd);
	}
	conn->fd = -1;
	conn->state = CONN_FREE;
}

/**
 * conn_drop_acked() - drop from the socket what the guest acknowledged
 * @conn:	connection
 *
 * Return: 0 on success, -1 if the socket had less than that (the
 * connection is then broken: reset it)
 */
int conn_drop_acked(struct tcp_conn *conn)
{
	while (conn->unread_acked) {
		ssize_t n = recv(conn->fd, NULL, conn->unread_acked,
				 MSG_TRUNC | MSG_DONTWAIT);

		if (n <= 0) {
			conn->unread_acked = 0;
			return -1;
		}
		conn->unread_acked -= (uint32_t)n;
	}
	return 0;
}

/**
 * conn_epoll() - set the epoll events of a connection's socket
 * @c:		execution context
 * @conn:	connection
 * @events:	events wanted (edge-triggered)
 */
void conn_epoll(struct ctx *c, struct tcp_conn *conn, uint32_t events)
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
 * tcp_sock_opts() - options of every connection's host socket
 * @fd:		socket
 *
 * The window the guest sees is the send buffer's room, and the kernel only
 * grows that buffer with the congestion window, which never grows while the
 * guest's window is what limits the flow: so the buffer is set as large as
 * net.core.wmem_max allows from the start.  Memory is used only by data
 * actually queued.
 */
void tcp_sock_opts(int fd)
{
	int one = 1, big = INT32_MAX;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
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

	if (!t)
		goto nomem;
	c->tcp = t;
	/* Zero pages until used: a slot is set up whole when taken */
	t->c = calloc(c->conf.max_tcp, sizeof(*t->c));
	if (!t->c || itable_init(&t->idx, c->conf.max_tcp))
		goto nomem;
	t->ack_list = t->wait_list = -1;
	/* Runs held past a hole (tcp/ooo.c): pages taken when used */
	t->ooo_buf = malloc((size_t)TCP_OOO_SLOTS * TCP_OOO_SLOT);
	if (!t->ooo_buf)
		goto nomem;
	for (int i = 0; i < TCP_OOO_SLOTS; i++)
		t->ooo_owner[i] = -1;
	t->mig_recs = calloc(c->conf.max_tcp, TCP_PASST_REC);
	if (!t->mig_recs)
		goto nomem;
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
 * tcp_listener_pool() - where the -t listeners are kept, for the control
 *			 socket to change them at run time (ctl_fwd.c)
 * @c:		execution context
 * @lst:	set to the array's pointer: index i is EPREF_TCP_LISTEN's i
 * @n:		set to its count's
 */
void tcp_listener_pool(struct ctx *c, struct fwd_listener ***lst,
		       uint32_t **n)
{
	*lst = &c->tcp->lst;
	*n = &c->tcp->nlst;
}

/**
 * tcp_conn_state() - a connection's state in a word, for a listing
 * @conn:	the connection
 *
 * Return: the word
 */
static const char *tcp_conn_state(const struct tcp_conn *conn)
{
	uint16_t fins = conn->flags & (F_GUEST_FIN | F_FIN_SENT);

	switch (conn->state) {
	case CONN_CONNECTING:
		return "CONNECTING";
	case CONN_SYNACK_SENT:
		return "SYN-ACK-SENT";
	case CONN_SYN_SENT:
		return "SYN-SENT";
	default:
		break;
	}
	if (conn->flags & F_MIGRATED)
		return "MIGRATED";
	if (fins == (F_GUEST_FIN | F_FIN_SENT))
		return "CLOSING";
	if (fins)
		return fins == F_GUEST_FIN ? "FIN-FROM-GUEST" : "FIN-TO-GUEST";
	return "ESTAB";
}

/**
 * tcp_conn_info() - the connection at a slot, for netshim-ctl's flows
 * @c:		execution context
 * @idx:	the slot, below tcp_conn_end()
 * @fi:		filled in
 *
 * Bytes are the sequence numbers' progress: from the guest, what it sent
 * past its SYN and before its FIN; to the guest, what it acknowledged.
 *
 * Return: true if the slot holds a connection
 */
bool tcp_conn_info(struct ctx *c, uint32_t idx, struct flow_info *fi)
{
	const struct tcp_conn *conn = &c->tcp->c[idx];

	if (idx >= c->tcp->idx.hiwater || conn->state == CONN_FREE)
		return false;
	memset(fi, 0, sizeof(*fi));
	fi->proto = IPPROTO_TCP;
	fi->inbound = conn->inbound;
	fi->state = tcp_conn_state(conn);
	fi->gaddr = conn->gaddr;
	fi->gport = conn->gport;
	fi->raddr = conn->raddr;
	fi->rport = conn->rport;
	fi->fd = conn->fd;
	fi->born = conn->born;
	fi->last = conn->last;
	if (conn->state != CONN_SYN_SENT && conn->seq_from_guest)
		fi->from_guest = (uint32_t)(conn->seq_from_guest -
					    conn->seq_init_guest - 1 -
					    !!(conn->flags & F_GUEST_FIN));
	if (conn->seq_acked != conn->seq_init_ours)
		fi->to_guest = (uint32_t)(conn->seq_acked -
					  conn->seq_init_ours - 1 -
					  !!(conn->flags & F_FIN_ACKED));
	return true;
}

/**
 * tcp_conn_end() - one past the highest slot ever used, for walks with
 *		    tcp_conn_info()
 * @c:		execution context
 *
 * Return: slot count to walk
 */
uint32_t tcp_conn_end(struct ctx *c)
{
	return c->tcp->idx.hiwater;
}

/**
 * tcp_guest_gone() - the VMM went away: reset every connection's remote
 * @c:		execution context
 *
 * But for the connections handed to a migration's destination: their
 * sockets stay, in repair mode and deaf (tcp/migrate.c), so that what
 * peers send to this pod until the network moves the address away is
 * dropped, not answered with a reset, as passt keeps its own.  The
 * launcher's source QEMU quits as soon as the migration completed, which
 * may be before the network moved anything.  They go when we exit, or
 * when another guest comes (tcp_guest_fresh()).
 */
void tcp_guest_gone(struct ctx *c)
{
	struct tcp_table *t = c->tcp;
	uint32_t i;

	for (i = 0; i < t->idx.hiwater && t->idx.used; i++) {
		struct tcp_conn *conn = &t->c[i];

		if (conn->state == CONN_FREE)
			continue;
		if (conn->flags & F_MIGRATED)
			conn->flags &= ~(F_ACK_LISTED | F_TX_WAIT);
		else
			conn_free(c, conn, true);
	}
	t->ack_list = t->wait_list = -1;
}

/**
 * tcp_guest_fresh() - a VMM or front-end connected: the sockets a
 *		       migration's source kept for the last guest go
 *		       (silently: they are in repair mode)
 * @c:		execution context
 */
void tcp_guest_fresh(struct ctx *c)
{
	struct tcp_table *t = c->tcp;
	uint32_t i;

	for (i = 0; i < t->idx.hiwater && t->idx.used; i++)
		if (t->c[i].state != CONN_FREE && (t->c[i].flags & F_MIGRATED))
			conn_free(c, &t->c[i], true);
}

/**
 * tcp_count() - connections in use
 * @c:		execution context
 *
 * Return: number of connections
 */
unsigned int tcp_count(struct ctx *c)
{
	return c->tcp->idx.used;
}
