// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - table of UDP and ICMP echo flows, sized at start-up
 *
 * A flat array of flows with chained hashing through indices, and a free
 * list threaded through the same field: lookups, inserts and removals never
 * allocate.  A flow owns its socket unless it was opened by a datagram to a
 * forwarded port, where replies leave through the listening socket.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "flow.h"
#include "ip.h"
#include "link/link.h"
#include "netshim/inany.h"
#include "netshim/itable.h"
#include "netshim/log.h"
#include "netshim/migio.h"

#define ICMP_TIMEOUT	60

/**
 * struct flow_table - the flows, and the index over them
 * @f:		flows, one per slot of @idx
 * @idx:	free slots, and hash chains of the used ones
 */
struct flow_table {
	struct flow *f;
	struct itable idx;
};

/**
 * flow_init() - size the table at start-up
 * @c:		execution context (conf.max_flows)
 *
 * Return: 0 on success, -1 if memory is short
 */
int flow_init(struct ctx *c)
{
	struct flow_table *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	/* Zero pages until used: a slot is set up whole when taken */
	t->f = calloc(c->conf.max_flows, sizeof(*t->f));
	if (!t->f || itable_init(&t->idx, c->conf.max_flows))
		return -1;
	c->flows = t;
	return 0;
}

/**
 * flow_key_hash() - hash of a connection or flow key
 * @proto:	protocol
 * @gaddr:	guest address
 * @gport:	guest port or echo identifier
 * @raddr:	remote address
 * @rport:	remote port
 *
 * FNV-1a over 32-bit words: the key is not secret, and a guest can only
 * collide its own flows.
 *
 * Return: 32-bit hash
 */
uint32_t flow_key_hash(uint8_t proto, const struct in6_addr *gaddr,
		       uint16_t gport, const struct in6_addr *raddr,
		       uint16_t rport)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ proto;
	uint32_t w[4];
	int i;

	memcpy(w, gaddr, 16);
	for (i = 0; i < 4; i++)
		h = (h ^ w[i]) * 0x100000001b3ULL;
	memcpy(w, raddr, 16);
	for (i = 0; i < 4; i++)
		h = (h ^ w[i]) * 0x100000001b3ULL;
	h = (h ^ ((uint32_t)gport << 16 | rport)) * 0x100000001b3ULL;
	return (uint32_t)(h ^ h >> 32);
}

/**
 * flow_lookup() - find a flow by its key
 * @c:		execution context
 * @proto:	protocol
 * @gaddr:	guest address
 * @gport:	guest port or echo identifier
 * @raddr:	remote address
 * @rport:	remote port
 *
 * Return: the flow, or NULL
 */
struct flow *flow_lookup(struct ctx *c, uint8_t proto,
			 const struct in6_addr *gaddr, uint16_t gport,
			 const struct in6_addr *raddr, uint16_t rport)
{
	struct flow_table *t = c->flows;
	int32_t i = itable_first(&t->idx, flow_key_hash(proto, gaddr, gport,
							raddr, rport));

	for (; i >= 0; i = itable_next(&t->idx, i)) {
		struct flow *f = &t->f[i];

		if (f->proto == proto && f->gport == gport &&
		    f->rport == rport && !memcmp(&f->gaddr, gaddr, 16) &&
		    !memcmp(&f->raddr, raddr, 16))
			return f;
	}
	return NULL;
}

/**
 * flow_new() - take a free flow and insert it with its key
 * @c:		execution context
 * @proto:	protocol
 * @gaddr:	guest address
 * @gport:	guest port or echo identifier
 * @raddr:	remote address
 * @rport:	remote port
 *
 * Return: the flow, with no socket yet, or NULL if the table is full
 */
struct flow *flow_new(struct ctx *c, uint8_t proto,
		      const struct in6_addr *gaddr, uint16_t gport,
		      const struct in6_addr *raddr, uint16_t rport)
{
	struct flow_table *t = c->flows;
	int32_t slot = itable_take(&t->idx, flow_key_hash(proto, gaddr, gport,
							  raddr, rport));
	struct flow *f;

	if (slot < 0) {
		c->cnt.drop_flow_full++;
		warn_rl(c->now.tv_sec, "flow table full (%u flows): dropping; "
			"see --max-flows", t->idx.n);
		return NULL;
	}
	f = &t->f[slot];

	f->proto = proto;
	f->inbound = false;
	f->gaddr = *gaddr;
	f->raddr = *raddr;
	f->paddr = in6addr_any;
	f->gport = gport;
	f->rport = rport;
	f->fd = -1;
	f->last = f->born = c->now.tv_sec;
	f->qp = 0;	/* the caller knows which pair */
	f->hop = 0;
	f->from_guest = f->to_guest = 0;
	return f;
}

/**
 * flow_free() - close a flow's socket and return it to the free list
 * @c:		execution context
 * @f:		flow
 */
void flow_free(struct ctx *c, struct flow *f)
{
	struct flow_table *t = c->flows;

	itable_put(&t->idx, (int32_t)(f - t->f),
		   flow_key_hash(f->proto, &f->gaddr, f->gport, &f->raddr,
				 f->rport));
	if (f->fd >= 0 && !f->inbound)
		close(f->fd);
	f->fd = -1;
	f->proto = 0;
}

/**
 * flow_forget_inbound() - end the inbound flows that reply through a
 *			   listener about to be closed
 * @c:		execution context
 * @fd:		the listener
 *
 * They hold its descriptor, not a socket of their own: once closed, the
 * number could be another socket's.
 */
void flow_forget_inbound(struct ctx *c, int fd)
{
	struct flow_table *t = c->flows;
	uint32_t i;

	for (i = 0; i < t->idx.hiwater && t->idx.used; i++)
		if (t->f[i].proto && t->f[i].inbound && t->f[i].fd == fd)
			flow_free(c, &t->f[i]);
}

/**
 * flow_at() - flow by index, from an epoll reference
 * @c:		execution context
 * @idx:	index
 *
 * Return: the flow, or NULL if out of range or free
 */
struct flow *flow_at(struct ctx *c, uint32_t idx)
{
	if (idx >= c->flows->idx.n || !c->flows->f[idx].proto)
		return NULL;
	return &c->flows->f[idx];
}

/**
 * flow_index() - index of a flow, for epoll references
 * @c:		execution context
 * @f:		flow
 *
 * Return: index
 */
uint32_t flow_index(struct ctx *c, const struct flow *f)
{
	return (uint32_t)(f - c->flows->f);
}

/**
 * flow_watch() - add a flow's own socket to the event loop
 * @c:		execution context
 * @f:		flow with a socket
 *
 * Return: 0 on success, -1 on failure
 */
int flow_watch(struct ctx *c, struct flow *f)
{
	struct epoll_event ev = {
		.events = EPOLLIN,
		.data.u64 = epref(EPREF_FLOW, flow_index(c, f)),
	};

	return epoll_ctl(c->epfd, EPOLL_CTL_ADD, f->fd, &ev);
}

/**
 * flow_sock_errors_on() - have the kernel queue the ICMP errors a flow's
 *			   socket gets, with their details (IP_RECVERR)
 * @f:		flow with its own socket
 *
 * Without it a connected UDP socket reports only hard errors (port
 * unreachable as ECONNREFUSED), and nothing says which router sent a time
 * exceeded or what MTU a fragmentation-needed message gave.
 *
 * Return: 0 on success, -1 on failure
 */
int flow_sock_errors_on(struct flow *f)
{
	bool v6 = !inany_is4(&f->raddr);

	return setsockopt(f->fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
			  v6 ? IPV6_RECVERR : IP_RECVERR, &(int){ 1 },
			  sizeof(int));
}

/**
 * flow_hop() - carry the guest's TTL or hop limit to a flow's socket
 * @f:		flow with its own socket
 * @hop:	TTL or hop limit of the guest's packet
 *
 * Only when it changes: a guest keeps one value per flow but for probes
 * (traceroute, tracepath, ping -t), whose TTL must leave the pod as the
 * guest set it for the routers on the path to answer.  Passed as the
 * guest sent it, not decremented: the guest's gateway stands for the
 * pod's, whose own hop the pod's kernel counts.
 */
void flow_hop(struct flow *f, uint8_t hop)
{
	bool v6 = !inany_is4(&f->raddr);
	int v = hop;

	if (hop == f->hop || !hop)
		return;
	/* Cannot fail on a socket of ours with a value in 1..255 */
	if (!setsockopt(f->fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
			v6 ? IPV6_UNICAST_HOPS : IP_TTL, &v, sizeof(v)))
		f->hop = hop;
}

/**
 * flow_timer() - expire idle flows
 * @c:		execution context
 */
void flow_timer(struct ctx *c)
{
	struct flow_table *t = c->flows;
	uint32_t i;

	for (i = 0; i < t->idx.hiwater && t->idx.used; i++) {
		struct flow *f = &t->f[i];
		time_t timeout = f->proto == IPPROTO_UDP ?
				 (time_t)c->conf.udp_timeout : ICMP_TIMEOUT;

		if (f->proto && c->now.tv_sec - f->last > timeout)
			flow_free(c, f);
	}
}

/**
 * flow_guest_gone() - close every flow: the guest they belong to is gone
 * @c:		execution context
 */
void flow_guest_gone(struct ctx *c)
{
	struct flow_table *t = c->flows;
	uint32_t i;

	for (i = 0; i < t->idx.hiwater && t->idx.used; i++)
		if (t->f[i].proto)
			flow_free(c, &t->f[i]);
}

/**
 * flow_room() - flows the table holds
 * @c:		execution context
 *
 * Return: its size (--max-flows)
 */
uint32_t flow_room(struct ctx *c)
{
	return c->flows->idx.n;
}

/**
 * flow_end() - one past the highest slot ever used, for walks with
 *		flow_at()
 * @c:		execution context
 *
 * Return: slot count to walk
 */
uint32_t flow_end(struct ctx *c)
{
	return c->flows->idx.hiwater;
}

/**
 * flow_count() - flows in use
 * @c:		execution context
 *
 * Return: number of flows
 */
unsigned int flow_count(struct ctx *c)
{
	return c->flows->idx.used;
}

/**
 * flow_sock_port() - the pod port a flow's socket is bound to, or a ping
 *		      socket's echo identifier
 * @f:		flow with its own socket
 *
 * Return: the port, 0 if the socket cannot tell
 */
uint16_t flow_sock_port(const struct flow *f)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	struct in6_addr a;
	uint16_t port;

	if (getsockname(f->fd, (struct sockaddr *)&sa, &sl))
		return 0;
	inany_from_sockaddr(&sa, &a, &port);
	return port;
}

/**
 * flow_migrate_load() - read a section of migrated flows, record by record
 * @c:		execution context
 * @io:		the stream, at the section's body: a count (4), then the
 *		records
 * @what:	what the flows are, for the log ("UDP flows")
 * @rec:	bytes of a record, at most FLOW_MIG_REC_MAX
 * @ok:		tells if a record can be (both addresses of one family,
 *		the record's own rules)
 * @open:	opens the flow of a good record here, true if it did
 * @opened:	counter of the flows opened
 *
 * Untrusted input: more flows than the table holds, or one malformed
 * record, refuses the whole state.
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL for a malformed
 * record, EFBIG for more flows than --max-flows allows)
 */
int flow_migrate_load(struct ctx *c, struct migio *io, const char *what,
		      size_t rec, bool (*ok)(const uint8_t *r),
		      bool (*open)(struct ctx *c, const uint8_t *r),
		      uint64_t *opened)
{
	uint32_t i, n, done = 0;

	if (migio_get_u32(io, &n))
		return -1;
	if (n > flow_room(c)) {
		err("migration: %u %s, more than --max-flows %u", n, what,
		    flow_room(c));
		io->err = EFBIG;
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint8_t r[FLOW_MIG_REC_MAX];
		struct in6_addr g, rem;

		if (migio_get(io, r, rec))
			return -1;
		memcpy(&g, r, 16);
		memcpy(&rem, r + 16, 16);
		if (inany_is4(&g) != inany_is4(&rem) || !ok(r)) {
			err("migration: %s: %u of %u is malformed", what,
			    i + 1, n);
			io->err = EINVAL;
			return -1;
		}
		if (open(c, r)) {
			(*opened)++;
			done++;
		}
	}
	if (n)
		info("migration: %u of %u %s open here", done, n, what);
	return 0;
}

/* An upgrade in place (daemon/upgrade.c): every flow, its socket passed
 * along; an inbound flow names the listener it replies through by that
 * socket's cookie, which the new netshim has too.  Record, integers big
 * endian: guest address (16, v4-mapped for IPv4), remote address (16),
 * guest port or echo identifier (2), remote port (2), protocol (1), flags
 * (1: FLOW_UP_INBOUND), TTL or hop limit set (1), queue pair (1), last
 * activity (8, CLOCK_MONOTONIC seconds), then the socket's mark, or for an
 * inbound flow its listener's cookie (8).
 */
#define FLOW_UP_REC		48
#define FLOW_UP_INBOUND		0x01

/**
 * flow_sock_cookie() - the kernel's name of a socket, the same in every
 *			process that holds it
 * @fd:		socket
 *
 * Return: its cookie, 0 if the kernel cannot tell
 */
uint64_t flow_sock_cookie(int fd)
{
	socklen_t sl = sizeof(uint64_t);
	uint64_t cookie;

	if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, &cookie, &sl))
		return 0;
	return cookie;
}

/**
 * flow_upgrade_save() - write every flow, its socket passed along
 * @c:		execution context
 * @io:		the stream, over the new netshim's UNIX socket
 *
 * Return: 0 on success, -1 with @io->err set
 */
int flow_upgrade_save(struct ctx *c, struct migio *io)
{
	struct flow_table *t = c->flows;
	uint32_t i;

	if (migio_put_u32(io, t->idx.used))
		return -1;
	for (i = 0; i < t->idx.hiwater; i++) {
		const struct flow *f = &t->f[i];
		uint8_t r[FLOW_UP_REC] = { 0 };

		if (!f->proto)
			continue;
		memcpy(r, &f->gaddr, 16);
		memcpy(r + 16, &f->raddr, 16);
		migio_wr_be16(r + 32, f->gport);
		migio_wr_be16(r + 34, f->rport);
		r[36] = f->proto;
		r[37] = f->inbound ? FLOW_UP_INBOUND : 0;
		r[38] = f->hop;
		r[39] = f->qp;
		migio_wr_be32(r + 40, (uint32_t)((uint64_t)f->last >> 32));
		migio_wr_be32(r + 44, (uint32_t)f->last);
		if (migio_put(io, r, sizeof(r)) ||
		    (f->inbound ? migio_put_u64(io, flow_sock_cookie(f->fd)) :
				  migio_put_fd(io, f->fd)))
			return -1;
	}
	if (t->idx.used)
		info("upgrade: %u UDP and ICMP flows go with their sockets",
		     t->idx.used);
	return 0;
}

/**
 * flow_upgrade_one() - take one flow of the old netshim
 * @c:		execution context
 * @io:		the stream, at the record
 * @listener:	the socket of the listener of a cookie, -1 if none
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int flow_upgrade_one(struct ctx *c, struct migio *io,
			    int (*listener)(struct ctx *c, uint64_t cookie))
{
	struct in6_addr gaddr, raddr;
	uint8_t r[FLOW_UP_REC];
	uint16_t gport, rport;
	uint64_t cookie = 0;
	struct flow *f;
	bool in;
	int fd = -1;

	if (migio_get(io, r, sizeof(r)))
		return -1;
	in = r[37] & FLOW_UP_INBOUND;
	if (in ? migio_get_u64(io, &cookie) : migio_get_fd(io, &fd))
		return -1;
	memcpy(&gaddr, r, 16);
	memcpy(&raddr, r + 16, 16);
	gport = migio_rd_be16(r + 32);
	rport = migio_rd_be16(r + 34);
	if ((r[36] != IPPROTO_UDP && r[36] != IPPROTO_ICMP &&
	     r[36] != IPPROTO_ICMPV6_) || (r[37] & ~FLOW_UP_INBOUND) ||
	    (r[36] == IPPROTO_UDP && (!gport || !rport)) ||
	    (r[36] != IPPROTO_UDP && (in || rport ||
				      (r[36] == IPPROTO_ICMP) !=
				      inany_is4(&gaddr))) ||
	    inany_is4(&gaddr) != inany_is4(&raddr) ||
	    flow_lookup(c, r[36], &gaddr, gport, &raddr, rport)) {
		if (fd >= 0 && !in)
			close(fd);
		io->err = EINVAL;
		return -1;
	}
	/* A listener this command line no longer forwards: its clients'
	 * next datagrams open the flow again, if it comes back
	 */
	if (in && (fd = listener(c, cookie)) < 0) {
		debug("upgrade: inbound UDP flow to guest port %u: its "
		      "listener is not forwarded here", gport);
		return 0;
	}
	f = flow_new(c, r[36], &gaddr, gport, &raddr, rport);
	if (!f) {
		if (!in)
			close(fd);
		io->err = EFBIG;
		return -1;
	}
	f->inbound = in;
	f->fd = fd;
	f->hop = r[38];
	f->qp = r[39];
	f->last = (time_t)((uint64_t)migio_rd_be32(r + 40) << 32 |
			   migio_rd_be32(r + 44));
	if (!in && flow_watch(c, f)) {
		io->err = errno;
		flow_free(c, f);
		return -1;
	}
	return 0;
}

/**
 * flow_upgrade_load() - take the flows of the old netshim
 * @c:		execution context
 * @io:		the stream, at the section's body
 * @listener:	the socket of the listener an inbound flow replies
 *		through, found by its cookie; -1 if there is none
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL for a malformed
 * record, EFBIG for more flows than --max-flows allows)
 */
int flow_upgrade_load(struct ctx *c, struct migio *io,
		      int (*listener)(struct ctx *c, uint64_t cookie))
{
	uint32_t i, n;

	if (migio_get_u32(io, &n))
		return -1;
	if (n > flow_room(c) - flow_count(c)) {
		err("upgrade: %u UDP and ICMP flows, more than --max-flows "
		    "%u", n, flow_room(c));
		io->err = EFBIG;
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!flow_upgrade_one(c, io, listener))
			continue;
		if (io->err == EINVAL)
			err("upgrade: flow %u of %u is malformed", i + 1, n);
		return -1;
	}
	if (n)
		info("upgrade: %u UDP and ICMP flows taken over", n);
	return 0;
}
