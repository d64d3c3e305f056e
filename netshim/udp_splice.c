// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - UDP local flows: datagrams relayed socket to socket
 *
 * In namespace mode, a datagram that starts and ends on loopback (a pod
 * process writing to the pod's 127.0.0.1:PORT under -u PORT, or a
 * namespace process writing to its own 127.0.0.1:PORT under -U PORT) is
 * not made into a frame: the tap would drop a loopback source as a
 * martian.  It is relayed to a socket of the other side, connected to
 * that side's loopback on the target port, as pasta does with its spliced
 * UDP flows.
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
 * one static buffer: UDP has no splice().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "inany.h"
#include "log.h"
#include "netns.h"
#include "udp_splice.h"

/* Datagrams moved per event: fairness between flows */
#define UDP_SPLICE_BATCH	64
/* Receive buffer asked for both sockets of a flow (the kernel caps it at
 * net.core.rmem_max): a relay's buffer must not be where a burst the end
 * sockets would take is lost
 */
#define UDP_SPLICE_RCVBUF	(4 << 20)

/**
 * struct udp_splice_flow - one local UDP conversation
 * @lfd:	socket the client writes to (a listener, not ours), -1: free
 * @fd:		our socket on the other side, connected to the server
 * @caddr:	the client's address (v4-mapped for IPv4)
 * @cport:	the client's port
 * @last:	last datagram either way, seconds
 * @next:	next in the hash chain or free list, -1 for none
 */
struct udp_splice_flow {
	int lfd;
	int fd;
	struct in6_addr caddr;
	uint16_t cport;
	time_t last;
	int32_t next;
};

/**
 * struct udp_splice_table - every local UDP flow, sized at start-up
 * @max:	slots
 * @count:	slots in use
 * @free:	first free slot, -1 if none
 * @nbuckets:	hash buckets, a power of two
 * @bucket:	first slot of each chain, -1 if empty
 * @f:		slots
 */
struct udp_splice_table {
	unsigned int max, count;
	int32_t free;
	uint32_t nbuckets;
	int32_t *bucket;
	struct udp_splice_flow f[];
};

static uint8_t udp_splice_buf[65536];

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
	uint32_t nb = 1;
	unsigned int i;

	while (nb < max * 2)
		nb <<= 1;
	t = calloc(1, sizeof(*t) + max * sizeof(t->f[0]));
	if (!t || !(t->bucket = calloc(nb, sizeof(*t->bucket)))) {
		free(t);
		err("out of memory for UDP local flows");
		return -1;
	}
	t->max = max;
	t->nbuckets = nb;
	for (i = 0; i < nb; i++)
		t->bucket[i] = -1;
	for (i = 0; i < max; i++) {
		t->f[i].lfd = t->f[i].fd = -1;
		t->f[i].next = i + 1 < max ? (int32_t)i + 1 : -1;
	}
	t->free = 0;
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
	return c->udp_splice ? c->udp_splice->count : 0;
}

/**
 * udp_splice_is_lo() - tell if an address is a loopback one
 * @a:		address, v4-mapped for IPv4
 *
 * Return: true for 127.0.0.0/8 and ::1
 */
bool udp_splice_is_lo(const struct in6_addr *a)
{
	if (inany_is4(a))
		return (ntohl(inany_to4(a).s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(a);
}

/**
 * udp_splice_hash() - hash bucket of a flow's key
 * @t:		table
 * @lfd:	socket the client writes to
 * @caddr:	client address
 * @cport:	client port
 *
 * Return: the bucket
 */
static uint32_t udp_splice_hash(const struct udp_splice_table *t, int lfd,
				const struct in6_addr *caddr, uint16_t cport)
{
	uint32_t h = 2166136261u, i;
	const uint8_t *b = caddr->s6_addr;

	/* FNV-1a: the key is short and not chosen by a remote party */
	for (i = 0; i < 16; i++)
		h = (h ^ b[i]) * 16777619u;
	h = (h ^ (uint32_t)lfd) * 16777619u;
	h = (h ^ cport) * 16777619u;
	return h & (t->nbuckets - 1);
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
	int32_t i = t->bucket[udp_splice_hash(t, lfd, caddr, cport)];

	for (; i >= 0; i = t->f[i].next) {
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
	int32_t idx = (int32_t)(f - t->f);
	int32_t *pp = &t->bucket[udp_splice_hash(t, f->lfd, &f->caddr,
						 f->cport)];

	while (*pp >= 0 && *pp != idx)
		pp = &t->f[*pp].next;
	if (*pp == idx)
		*pp = f->next;
	if (f->fd >= 0) {
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, f->fd, NULL);
		close(f->fd);
	}
	f->fd = f->lfd = -1;
	f->next = t->free;
	t->free = idx;
	t->count--;
}

/**
 * udp_splice_open() - a new flow, its socket on the other side
 * @c:		execution context
 * @lfd:	socket the client writes to
 * @caddr:	client address
 * @cport:	client port
 * @to_ns:	the server is on the namespace's loopback (else the pod's)
 * @port:	the server's port
 *
 * Return: the flow, NULL if the table is full or no socket could be made
 * (counted)
 */
static struct udp_splice_flow *udp_splice_open(struct ctx *c, int lfd,
					       const struct in6_addr *caddr,
					       uint16_t cport, bool to_ns,
					       uint16_t port)
{
	struct udp_splice_table *t = c->udp_splice;
	bool v6 = !inany_is4(caddr);
	struct epoll_event ev = { .events = EPOLLIN };
	struct udp_splice_flow *f;
	uint32_t h;
	int fd;

	if (t->free < 0) {
		c->cnt.drop_flow_full++;
		return NULL;
	}
	if (to_ns) {
		fd = netns_udp_lo(c, v6, cport, port);
	} else {
		struct in_addr lo4 = { htonl(INADDR_LOOPBACK) };
		struct in6_addr lo = v6 ? in6addr_loopback : inany_from4(lo4);
		struct sockaddr_storage sa;
		socklen_t sl;

		fd = socket(v6 ? AF_INET6 : AF_INET,
			    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd >= 0) {
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

	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &(int){ UDP_SPLICE_RCVBUF },
		   sizeof(int));
	setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &(int){ UDP_SPLICE_RCVBUF },
		   sizeof(int));
	f = &t->f[t->free];
	ev.data.u64 = epref(EPREF_UDP_SPLICE, (uint32_t)t->free);
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		c->cnt.drop_sock++;
		return NULL;
	}
	t->free = f->next;
	t->count++;
	f->lfd = lfd;
	f->fd = fd;
	f->caddr = *caddr;
	f->cport = cport;
	f->last = c->now.tv_sec;
	h = udp_splice_hash(t, lfd, caddr, cport);
	f->next = t->bucket[h];
	t->bucket[h] = (int32_t)(f - t->f);
	c->cnt.udp_spliced++;
	return f;
}

/**
 * udp_splice_peek_lo() - tell if the next datagram on a socket comes from
 *			  loopback
 * @c:		execution context
 * @fd:		socket
 *
 * Return: 1 if it does (namespace mode relays it), 0 if it does not or we
 * are not in namespace mode, -1 if the socket is empty
 */
int udp_splice_peek_lo(const struct ctx *c, int fd)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	struct in6_addr a;
	uint16_t port;

	if (!c->udp_splice)
		return 0;
	if (recvfrom(fd, NULL, 0, MSG_PEEK | MSG_DONTWAIT,
		     (struct sockaddr *)&sa, &sl) < 0)
		return -1;
	inany_from_sockaddr(&sa, &a, &port);
	return udp_splice_is_lo(&a);
}

/**
 * udp_splice_take() - relay one datagram from a client to its server
 * @c:		execution context
 * @lfd:	socket the client wrote to
 * @to_ns:	the server is on the namespace's loopback (else the pod's)
 * @port:	the server's port
 *
 * Return: true if a datagram was read (relayed or dropped), false if the
 * socket is empty
 */
bool udp_splice_take(struct ctx *c, int lfd, bool to_ns, uint16_t port)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	struct udp_splice_flow *f;
	struct in6_addr caddr;
	uint16_t cport;
	ssize_t n;

	n = recvfrom(lfd, udp_splice_buf, sizeof(udp_splice_buf),
		     MSG_DONTWAIT, (struct sockaddr *)&sa, &sl);
	if (n < 0)
		return false;
	if (sa.ss_family != AF_INET && sa.ss_family != AF_INET6)
		return true;
	inany_from_sockaddr(&sa, &caddr, &cport);
	f = udp_splice_lookup(c->udp_splice, lfd, &caddr, cport);
	if (!f)
		f = udp_splice_open(c, lfd, &caddr, cport, to_ns, port);
	if (!f)
		return true;
	f->last = c->now.tv_sec;
	/* An earlier datagram to a server port nobody held leaves an
	 * ECONNREFUSED that fails the next send() and is cleared by it:
	 * try once more.  The client is not told (no ICMP reaches it
	 * through us), as a datagram lost on the way.
	 */
	if (send(f->fd, udp_splice_buf, (size_t)n, MSG_DONTWAIT) < 0 &&
	    send(f->fd, udp_splice_buf, (size_t)n, MSG_DONTWAIT) < 0)
		c->cnt.drop_sock++;
	return true;
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
	ssize_t n;
	int i;

	if (!t || idx >= t->max || t->f[idx].fd < 0)
		return;
	f = &t->f[idx];
	sl = inany_sockaddr(&sa, &f->caddr, f->cport);
	for (i = 0; i < UDP_SPLICE_BATCH; i++) {
		n = recv(f->fd, udp_splice_buf, sizeof(udp_splice_buf),
			 MSG_DONTWAIT);
		if (n < 0) {
			/* ECONNREFUSED, read once, clears the error */
			if (errno == ECONNREFUSED)
				continue;
			break;
		}
		f->last = c->now.tv_sec;
		if (sendto(f->lfd, udp_splice_buf, (size_t)n, MSG_DONTWAIT,
			   (struct sockaddr *)&sa, sl) < 0)
			c->cnt.drop_sock++;
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

	if (!t || !t->count)
		return;
	for (i = 0; i < t->max; i++)
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

	if (!t || !t->count)
		return;
	for (i = 0; i < t->max; i++)
		if (t->f[i].fd >= 0 && t->f[i].lfd == lfd)
			udp_splice_close(c, &t->f[i]);
}
