// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - UDP local flows: datagrams relayed socket to socket
 *
 * In namespace mode, a datagram that starts and ends on loopback (a pod
 * process writing to the pod's 127.0.0.1:PORT under -u PORT, or a
 * namespace process writing to its own 127.0.0.1:PORT under -U PORT) is
 * not made into a frame: the tap would drop a loopback source as a
 * martian.  It is relayed to a socket of the other side, connected on the
 * target port to the pod's loopback, or in the namespace to its own
 * address (its loopback with --host-lo-to-ns-lo: nssock_local_dst()), as
 * pasta does with its spliced UDP flows.
 *
 * A flow is (the socket the datagram came in on, its source address and
 * port).  Its own socket on the other side keeps the client's source port
 * where that port is free there, so the server sees the port the client
 * chose; replies read from it are sent back through the socket the client
 * wrote to, so the client sees them come from the address and port it
 * wrote to.  A flow ends after --udp-timeout seconds without a datagram
 * either way (180 by default, pasta's UDP_CONN_TIMEOUT).
 *
 * The table is sized at start-up and hashed; a flow that does not fit is
 * dropped and counted, as guest flows are.  Datagrams are copied through
 * static buffers (UDP has no splice()), UDP_SPLICE_MMSG at a time with
 * recvmmsg() and sendmmsg() where they all come from one socket: a system
 * call per datagram each way cost more than the copies (profiled: entry,
 * seccomp, fdget, and interrupt toggling in a virtual machine).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "splice.h"
#include "netshim/inany.h"
#include "netshim/itable.h"
#include "netshim/log.h"
#include "netshim/migio.h"
#include "netshim/netns.h"
#include "netshim/nssock.h"

/* Datagrams moved per event: fairness between flows */
#define UDP_SPLICE_BATCH	64

/**
 * struct udp_splice_flow - one local UDP conversation
 * @lfd:	socket the client writes to (a listener, not ours), -1: free
 * @fd:		our socket on the other side, connected to the server
 * @caddr:	the client's address (v4-mapped for IPv4)
 * @cport:	the client's port
 * @last:	last datagram either way, seconds
 */
struct udp_splice_flow {
	int lfd;
	int fd;
	struct in6_addr caddr;
	uint16_t cport;
	time_t last;
};

/**
 * struct udp_splice_table - every local UDP flow, sized at start-up
 * @idx:	free slots, and hash chains of the used ones
 * @f:		flows, one per slot
 */
struct udp_splice_table {
	struct itable idx;
	struct udp_splice_flow f[];
};

/* Datagrams per recvmmsg() and sendmmsg() */
#define UDP_SPLICE_MMSG		32

/* Scratch of one turn of recvmmsg() and sendmmsg(), refilled each time
 * and never read across turns: kept out of struct ctx, as a function's
 * local variables would be if 2 MiB fitted on the stack
 */
static uint8_t udp_splice_buf[UDP_SPLICE_MMSG][65536];
static struct iovec udp_splice_iov[UDP_SPLICE_MMSG];
static struct mmsghdr udp_splice_in[UDP_SPLICE_MMSG];
static struct mmsghdr udp_splice_out[UDP_SPLICE_MMSG];
static struct sockaddr_storage udp_splice_sa[UDP_SPLICE_MMSG];
static struct udp_splice_flow *udp_splice_of[UDP_SPLICE_MMSG];

/**
 * udp_splice_init() - size the table
 * @c:		execution context, in namespace mode
 * @max:	flows at once
 *
 * Return: 0 on success, -1 on failure (reported)
 */
int udp_splice_init(struct ctx *c, unsigned int max)
{
	struct udp_splice_table *t;
	unsigned int i;

	t = calloc(1, sizeof(*t) + max * sizeof(t->f[0]));
	if (!t || itable_init(&t->idx, max)) {
		free(t);
		err("out of memory for UDP local flows");
		return -1;
	}
	for (i = 0; i < max; i++)
		t->f[i].lfd = t->f[i].fd = -1;
	c->udp_splice = t;
	return 0;
}

/**
 * udp_splice_count() - local UDP flows open now
 * @c:		execution context
 *
 * Return: their number, 0 outside namespace mode
 */
unsigned int udp_splice_count(const struct ctx *c)
{
	return c->udp_splice ? c->udp_splice->idx.used : 0;
}

/**
 * udp_splice_hash() - hash of a flow's key
 * @lfd:	socket the client writes to
 * @caddr:	client address
 * @cport:	client port
 *
 * Return: the hash, for the table's index
 */
static uint32_t udp_splice_hash(int lfd, const struct in6_addr *caddr,
				uint16_t cport)
{
	uint32_t h = 2166136261u, i;
	const uint8_t *b = caddr->s6_addr;

	/* FNV-1a: the key is short and not chosen by a remote party */
	for (i = 0; i < 16; i++)
		h = (h ^ b[i]) * 16777619u;
	h = (h ^ (uint32_t)lfd) * 16777619u;
	h = (h ^ cport) * 16777619u;
	return h;
}

/**
 * udp_splice_lookup() - the flow of a client on a socket
 * @t:		table
 * @lfd:	socket the client writes to
 * @caddr:	client address
 * @cport:	client port
 *
 * Return: the flow, NULL if none
 */
static struct udp_splice_flow *udp_splice_lookup(struct udp_splice_table *t,
						 int lfd,
						 const struct in6_addr *caddr,
						 uint16_t cport)
{
	int32_t i = itable_first(&t->idx, udp_splice_hash(lfd, caddr, cport));

	for (; i >= 0; i = itable_next(&t->idx, i)) {
		struct udp_splice_flow *f = &t->f[i];

		if (f->lfd == lfd && f->cport == cport &&
		    inany_eq(&f->caddr, caddr))
			return f;
	}
	return NULL;
}

/**
 * udp_splice_close() - end a flow, return its slot
 * @c:		execution context
 * @f:		the flow
 */
static void udp_splice_close(struct ctx *c, struct udp_splice_flow *f)
{
	struct udp_splice_table *t = c->udp_splice;

	itable_put(&t->idx, (int32_t)(f - t->f),
		   udp_splice_hash(f->lfd, &f->caddr, f->cport));
	if (f->fd >= 0) {
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, f->fd, NULL);
		close(f->fd);
	}
	f->fd = f->lfd = -1;
}

/**
 * udp_splice_open() - a new flow, its socket on the other side
 * @c:		execution context
 * @lfd:	socket the client writes to
 * @caddr:	client address
 * @cport:	client port
 * @to_ns:	the server is in the namespace (else on the pod's loopback)
 * @dst:	with @to_ns: the server's address in the namespace, NULL or ::
 *		for the default (nssock_local_dst())
 * @port:	the server's port
 *
 * Return: the flow, NULL if the table is full or no socket could be made
 * (counted)
 */
static struct udp_splice_flow *udp_splice_open(struct ctx *c, int lfd,
					       const struct in6_addr *caddr,
					       uint16_t cport, bool to_ns,
					       const struct in6_addr *dst,
					       uint16_t port)
{
	struct udp_splice_table *t = c->udp_splice;
	bool v6 = !inany_is4(caddr);
	struct epoll_event ev = { .events = EPOLLIN };
	uint32_t h = udp_splice_hash(lfd, caddr, cport);
	struct udp_splice_flow *f;
	int32_t slot;
	int fd;

	if (itable_full(&t->idx)) {
		c->cnt.drop_flow_full++;
		return NULL;
	}
	if (to_ns) {
		fd = nssock_udp_local(c, v6, cport, dst, port);
	} else {
		struct in_addr lo4 = { htonl(INADDR_LOOPBACK) };
		struct in6_addr lo = v6 ? in6addr_loopback : inany_from4(lo4);
		struct sockaddr_storage sa;
		socklen_t sl;

		fd = socket(v6 ? AF_INET6 : AF_INET,
			    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd >= 0) {
			nssock_bufs(fd);
			/* The pod's server sees the client's port if free */
			sl = inany_sockaddr(&sa, &lo, cport);
			bind(fd, (struct sockaddr *)&sa, sl);
			sl = inany_sockaddr(&sa, &lo, port);
			if (connect(fd, (struct sockaddr *)&sa, sl)) {
				close(fd);
				fd = -1;
			}
		}
	}
	if (fd < 0) {
		c->cnt.drop_sock++;
		warn_rl(c->now.tv_sec, "UDP local flow to the %s's port %u: %m",
			to_ns ? "namespace" : "pod", port);
		return NULL;
	}

	slot = itable_take(&t->idx, h);
	f = &t->f[slot];
	ev.data.u64 = epref(EPREF_UDP_SPLICE, (uint32_t)slot);
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		itable_put(&t->idx, slot, h);
		close(fd);
		c->cnt.drop_sock++;
		return NULL;
	}
	f->lfd = lfd;
	f->fd = fd;
	f->caddr = *caddr;
	f->cport = cport;
	f->last = c->now.tv_sec;
	c->cnt.udp_spliced++;
	return f;
}

/**
 * udp_splice_take() - relay one datagram from a client to its server
 * @c:		execution context
 * @lfd:	socket the client wrote to
 * @to_ns:	the server is in the namespace (else on the pod's loopback)
 * @dst:	with @to_ns: the server's address in the namespace (a -u
 *		rule's target address), NULL or :: for the default
 * @port:	the server's port
 *
 * Return: true if a datagram was read (relayed or dropped), false if the
 * socket is empty
 */
bool udp_splice_take(struct ctx *c, int lfd, bool to_ns,
		     const struct in6_addr *dst, uint16_t port)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	struct udp_splice_flow *f;
	struct in6_addr caddr;
	uint16_t cport;
	ssize_t n;

	n = recvfrom(lfd, udp_splice_buf[0], sizeof(udp_splice_buf[0]),
		     MSG_DONTWAIT, (struct sockaddr *)&sa, &sl);
	if (n < 0)
		return false;
	if (sa.ss_family != AF_INET && sa.ss_family != AF_INET6)
		return true;
	inany_from_sockaddr(&sa, &caddr, &cport);
	f = udp_splice_lookup(c->udp_splice, lfd, &caddr, cport);
	if (!f)
		f = udp_splice_open(c, lfd, &caddr, cport, to_ns, dst, port);
	if (!f)
		return true;
	f->last = c->now.tv_sec;
	/* An earlier datagram to a server port nobody held leaves an
	 * ECONNREFUSED that fails the next send() and is cleared by it:
	 * try once more.  The client is not told (no ICMP reaches it
	 * through us), as a datagram lost on the way.
	 */
	if (send(f->fd, udp_splice_buf[0], (size_t)n, MSG_DONTWAIT) < 0 &&
	    send(f->fd, udp_splice_buf[0], (size_t)n, MSG_DONTWAIT) < 0)
		c->cnt.drop_sock++;
	return true;
}

/**
 * udp_splice_recv() - receive up to UDP_SPLICE_MMSG datagrams at once
 * @fd:		socket
 * @names:	fill in the source addresses (udp_splice_sa)
 *
 * Return: datagrams received into udp_splice_buf, 0 if none
 */
static int udp_splice_recv(int fd, bool names)
{
	int i, n;

	for (i = 0; i < UDP_SPLICE_MMSG; i++) {
		udp_splice_iov[i].iov_base = udp_splice_buf[i];
		udp_splice_iov[i].iov_len = sizeof(udp_splice_buf[i]);
		udp_splice_in[i].msg_hdr = (struct msghdr){
			.msg_iov = &udp_splice_iov[i], .msg_iovlen = 1,
			.msg_name = names ? &udp_splice_sa[i] : NULL,
			.msg_namelen = names ? sizeof(udp_splice_sa[i]) : 0,
		};
	}
	n = recvmmsg(fd, udp_splice_in, UDP_SPLICE_MMSG, MSG_DONTWAIT, NULL);
	return n > 0 ? n : 0;
}

/**
 * udp_splice_send() - send datagrams received by udp_splice_recv()
 * @c:		execution context
 * @fd:		socket
 * @first:	first datagram
 * @n:		how many, from @first
 * @sa:		destination, NULL on a connected socket
 * @sl:		its length
 */
static void udp_splice_send(struct ctx *c, int fd, int first, int n,
			    const struct sockaddr_storage *sa, socklen_t sl)
{
	int i, sent = 0, tries = 0, r;

	for (i = first; i < first + n; i++) {
		udp_splice_iov[i].iov_len = udp_splice_in[i].msg_len;
		udp_splice_out[i].msg_hdr = (struct msghdr){
			.msg_iov = &udp_splice_iov[i], .msg_iovlen = 1,
			.msg_name = (void *)sa, .msg_namelen = sa ? sl : 0,
		};
	}
	while (sent < n) {
		r = sendmmsg(fd, udp_splice_out + first + sent, n - sent,
			     MSG_DONTWAIT);
		if (r > 0) {
			sent += r;
			continue;
		}
		/* An earlier datagram to a port nobody held leaves an
		 * ECONNREFUSED that fails the next call and is cleared by
		 * it: once more.  Otherwise the rest is lost on the way.
		 */
		if (r < 0 && errno == ECONNREFUSED && !tries++)
			continue;
		c->cnt.drop_sock += (uint64_t)(n - sent);
		return;
	}
}

/**
 * udp_splice_take_batch() - relay the datagrams waiting on a socket of
 *			     loopback clients to their servers
 * @c:		execution context
 * @lfd:	socket the clients wrote to (-U: only loopback reaches it)
 * @to_ns:	the servers are in the namespace (else on the pod's loopback)
 * @port:	the servers' port
 *
 * Return: true if a full batch was read: more may wait
 */
bool udp_splice_take_batch(struct ctx *c, int lfd, bool to_ns, uint16_t port)
{
	int n = udp_splice_recv(lfd, true), i, j;
	struct in6_addr caddr;
	uint16_t cport;

	for (i = 0; i < n; i++) {
		struct udp_splice_flow *f = NULL;
		const struct sockaddr_storage *sa = &udp_splice_sa[i];

		if (sa->ss_family == AF_INET || sa->ss_family == AF_INET6) {
			inany_from_sockaddr(sa, &caddr, &cport);
			f = udp_splice_lookup(c->udp_splice, lfd, &caddr,
					      cport);
			if (!f)
				f = udp_splice_open(c, lfd, &caddr, cport,
						    to_ns, NULL, port);
		}
		if (f)
			f->last = c->now.tv_sec;
		udp_splice_of[i] = f;
	}
	/* One sendmmsg() per run of datagrams of the same flow */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && udp_splice_of[j] == udp_splice_of[i];
		     j++)
			;
		if (udp_splice_of[i])
			udp_splice_send(c, udp_splice_of[i]->fd, i, j - i,
					NULL, 0);
	}
	return n == UDP_SPLICE_MMSG;
}

/**
 * udp_splice_ready() - replies from a server: back to its client
 * @c:		execution context
 * @idx:	flow index
 */
void udp_splice_ready(struct ctx *c, uint32_t idx)
{
	struct udp_splice_table *t = c->udp_splice;
	struct sockaddr_storage sa;
	struct udp_splice_flow *f;
	socklen_t sl;
	int i, n;

	if (!t || idx >= t->idx.n || t->f[idx].fd < 0)
		return;
	f = &t->f[idx];
	sl = inany_sockaddr(&sa, &f->caddr, f->cport);
	for (i = 0; i < UDP_SPLICE_BATCH / UDP_SPLICE_MMSG; i++) {
		n = udp_splice_recv(f->fd, false);
		/* ECONNREFUSED, read once, clears the error */
		if (!n && errno == ECONNREFUSED)
			n = udp_splice_recv(f->fd, false);
		if (!n)
			break;
		f->last = c->now.tv_sec;
		udp_splice_send(c, f->lfd, 0, n, &sa, sl);
		if (n < UDP_SPLICE_MMSG)
			break;
	}
}

/**
 * udp_splice_timer() - once a second: end idle flows
 * @c:		execution context
 */
void udp_splice_timer(struct ctx *c)
{
	struct udp_splice_table *t = c->udp_splice;
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < t->idx.hiwater && t->idx.used; i++)
		if (t->f[i].fd >= 0 &&
		    c->now.tv_sec - t->f[i].last >= (time_t)c->conf.udp_timeout)
			udp_splice_close(c, &t->f[i]);
}

/**
 * udp_splice_forget() - end the flows of a socket about to be closed
 * @c:		execution context
 * @lfd:	the socket (a listener that "auto" releases)
 */
void udp_splice_forget(struct ctx *c, int lfd)
{
	struct udp_splice_table *t = c->udp_splice;
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < t->idx.hiwater && t->idx.used; i++)
		if (t->f[i].fd >= 0 && t->f[i].lfd == lfd)
			udp_splice_close(c, &t->f[i]);
}

/* An upgrade in place (daemon/upgrade.c): every flow, its socket on the
 * server's side passed along; the socket its client writes to is a
 * listener, which the new netshim has too: named by its cookie.  Record,
 * integers big endian: client address (16, v4-mapped for IPv4), client
 * port (2), two zero bytes, last datagram (8, CLOCK_MONOTONIC seconds),
 * the listener's cookie (8), then the socket.
 */
#define UDP_SPLICE_UP_REC	36

/**
 * udp_splice_upgrade_save() - write every flow, its socket along
 * @c:		execution context
 * @io:		the stream, over the new netshim's UNIX socket
 *
 * Return: 0 on success, -1 with @io->err set
 */
int udp_splice_upgrade_save(struct ctx *c, struct migio *io)
{
	struct udp_splice_table *t = c->udp_splice;
	uint32_t i;

	if (migio_put_u32(io, t ? t->idx.used : 0))
		return -1;
	for (i = 0; t && i < t->idx.hiwater; i++) {
		const struct udp_splice_flow *f = &t->f[i];
		uint8_t r[UDP_SPLICE_UP_REC] = { 0 };
		socklen_t sl = sizeof(uint64_t);
		uint64_t cookie = 0;

		if (f->fd < 0)
			continue;
		getsockopt(f->lfd, SOL_SOCKET, SO_COOKIE, &cookie, &sl);
		memcpy(r, &f->caddr, 16);
		migio_wr_be16(r + 16, f->cport);
		migio_wr_be32(r + 20, (uint32_t)((uint64_t)f->last >> 32));
		migio_wr_be32(r + 24, (uint32_t)f->last);
		migio_wr_be32(r + 28, (uint32_t)(cookie >> 32));
		migio_wr_be32(r + 32, (uint32_t)cookie);
		if (migio_put(io, r, sizeof(r)) || migio_put_fd(io, f->fd))
			return -1;
	}
	if (t && t->idx.used)
		info("upgrade: %u local UDP flows go with their sockets",
		     t->idx.used);
	return 0;
}

/**
 * udp_splice_upgrade_load() - take the local UDP flows of the old netshim
 * @c:		execution context
 * @io:		the stream, at the section's body
 * @listener:	the socket here of a listener's cookie, -1 if none: a flow
 *		of a listener this command line does not have is left
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL if malformed, EFBIG
 * for more flows than the table holds)
 */
int udp_splice_upgrade_load(struct ctx *c, struct migio *io,
			    int (*listener)(struct ctx *c, uint64_t cookie))
{
	struct udp_splice_table *t = c->udp_splice;
	uint32_t i, n;

	if (migio_get_u32(io, &n))
		return -1;
	if (n && (!t || n > t->idx.n - t->idx.used)) {
		err("upgrade: %u local UDP flows, more than this netshim "
		    "holds", n);
		io->err = EFBIG;
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct epoll_event ev = { .events = EPOLLIN };
		uint8_t r[UDP_SPLICE_UP_REC];
		struct in6_addr caddr;
		struct udp_splice_flow *f;
		int fd, lfd;
		int32_t slot;
		uint32_t h;

		if (migio_get(io, r, sizeof(r)) || migio_get_fd(io, &fd))
			return -1;
		memcpy(&caddr, r, 16);
		lfd = listener(c, (uint64_t)migio_rd_be32(r + 28) << 32 |
				  migio_rd_be32(r + 32));
		if (r[18] || r[19] || !migio_rd_be16(r + 16) ||
		    udp_splice_lookup(t, lfd, &caddr, migio_rd_be16(r + 16))) {
			close(fd);
			err("upgrade: local UDP flow %u of %u is malformed",
			    i + 1, n);
			io->err = EINVAL;
			return -1;
		}
		if (lfd < 0) {
			close(fd);
			continue;
		}
		h = udp_splice_hash(lfd, &caddr, migio_rd_be16(r + 16));
		slot = itable_take(&t->idx, h);
		f = &t->f[slot];
		ev.data.u64 = epref(EPREF_UDP_SPLICE, (uint32_t)slot);
		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			itable_put(&t->idx, slot, h);
			close(fd);
			io->err = errno;
			return -1;
		}
		f->lfd = lfd;
		f->fd = fd;
		f->caddr = caddr;
		f->cport = migio_rd_be16(r + 16);
		f->last = (time_t)((uint64_t)migio_rd_be32(r + 20) << 32 |
				   migio_rd_be32(r + 24));
	}
	if (n)
		info("upgrade: %u local UDP flows taken over", n);
	return 0;
}
