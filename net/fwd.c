// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - sockets on the pod's forwarded ports (-t, -u)
 *
 * One socket per forwarded port, bound at start-up (before privileges go,
 * so ports below 1024 work): an IPv6 socket that takes IPv4 too
 * (IPV6_V6ONLY off, IPv4 peers as v4-mapped addresses) where the rule
 * allows both families, as passt's, so that "all" costs one descriptor
 * and one socket's kernel memory a port, not two; one socket per family
 * where the rule has an address or a guest address of one family, where
 * the pod has one family only, or where a pod process holds the port in
 * one family.  With "all", ports some other process of the pod already
 * holds are skipped; an explicitly named port that cannot be bound is an
 * error.
 *
 * For TCP with "all", ranges, or "auto" for a VM, the eBPF sk_lookup
 * program (bpf/sk_lookup.c) replaces those thousands of sockets by one
 * per family where it can be loaded, and leaves every port a pod process
 * listens on, now or later, to that process.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "fwd.h"
#include "gaddr.h"
#include "podwatch.h"
#include "bpf/bpf.h"
#include "bpf/sk_lookup.h"
#include "netshim/fdpool.h"
#include "netshim/fwdspec.h"
#include "netshim/inany.h"
#include "netshim/log.h"
#include "netshim/netns.h"
#include "netshim/nssock.h"

/* Backlog of a listener taking every forwarded port (sk_lookup) */
#define FWD_LOOKUP_BACKLOG	4096

/**
 * fwd_bind_addr() - address to bind for a rule, in one family
 * @bind:	the rule's address, "" for any
 * @v6:		family wanted
 * @a:		filled in (v4-mapped for IPv4)
 *
 * Return: false if the rule's address is of the other family
 */
bool fwd_bind_addr(const char *bind, bool v6, struct in6_addr *a)
{
	struct in_addr a4 = { INADDR_ANY };

	if (!*bind) {
		*a = v6 ? in6addr_any : inany_from4(a4);
		return true;
	}
	if (inet_pton(AF_INET, bind, &a4) == 1) {
		*a = inany_from4(a4);
		return !v6;
	}
	return v6 && inet_pton(AF_INET6, bind, a) == 1;
}

/**
 * fwd_open_one() - open one forwarded port, in one family or both
 * @c:		execution context
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @ref:	epoll reference type for the socket
 * @a:		address to bind, NULL for any address of both families on
 *		one IPv6 socket (IPV6_V6ONLY off)
 * @dev:	interface to bind to, "" for any
 * @port:	pod port
 * @l:		listener to fill in; its index is the epoll reference's
 * @idx:	that index
 *
 * The socket is noted as ours for scans of the pod's listeners
 * (podwatch.c).  Taking over from a running netshim (--upgrade), its
 * socket of that port is taken instead (fdpool.c): the same one serves.
 *
 * Return: 0 on success, -1 on failure (errno set)
 */
int fwd_open_one(struct ctx *c, int type, enum epref_type ref,
		 const struct in6_addr *a, const char *dev, uint16_t port,
		 struct fwd_listener *l, uint32_t idx)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = epref(ref, idx) };
	bool v6 = !a || !inany_is4(a);
	struct sockaddr_storage sa;
	socklen_t sl = inany_sockaddr(&sa, a ? a : &in6addr_any, port);
	int fd, one = 1, v6only = !!a, e;

	fd = fdpool_take_inet(type, a, port);
	if (fd >= 0)
		goto watch;
	fd = socket(v6 ? AF_INET6 : AF_INET,
		    type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* Set either way: net.ipv6.bindv6only may say otherwise */
	if (v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only,
			     sizeof(v6only)) && !a) {
		close(fd);
		return -1;
	}
	if (type == SOCK_STREAM)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Namespace mode: local flows start here (nssock_bufs()) */
	if (conf_ns_mode(&c->conf))
		nssock_bufs(fd);
	/* --freebind: an address the pod may only get later */
	if (c->conf.freebind)
		setsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
			   v6 ? IPV6_FREEBIND : IP_FREEBIND, &one, sizeof(one));
	if ((*dev && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev,
				strlen(dev) + 1)) ||
	    bind(fd, (struct sockaddr *)&sa, sl) ||
	    (type == SOCK_STREAM && listen(fd, 128)))
		goto fail;
watch:
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev))
		goto fail;
	l->fd = fd;
	l->v6 = v6;
	l->dual = !a;
	podwatch_own(c, fd, type);
	return 0;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

/**
 * fwd_close_last() - undo fwd_open_one() for a listener not kept
 * @c:		execution context
 * @l:		listener
 */
static void fwd_close_last(struct ctx *c, struct fwd_listener *l)
{
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, l->fd, NULL);
	podwatch_disown(c, l->fd);
	close(l->fd);
	l->fd = -1;
}

/**
 * fwd_excluded() - tell if a spec excludes a port with "~"
 * @spec:	forwarding spec
 * @port:	pod port
 *
 * Return: true if it does
 */
static bool fwd_excluded(const struct fwd_spec *spec, uint16_t port)
{
	int i;

	for (i = 0; i < spec->n; i++) {
		const struct fwd_rule *r = &spec->rule[i];

		if (r->exclude && port >= r->first && port <= r->last)
			return true;
	}
	return false;
}

/**
 * fwd_port_lookup() - is a pod port forwarded to the guest, and where
 * @c:		execution context (namespace or VM mode)
 * @spec:	-t spec
 * @port:	pod port
 * @to:		guest port, set if forwarded (may be NULL)
 *
 * As fwdspec_lookup(), and for a VM, "auto" forwards every port not
 * excluded to the same guest port: which of them a pod process listens
 * on is the sk_lookup program's business, at each connection.
 *
 * Return: true if @port is forwarded
 */
bool fwd_port_lookup(const struct ctx *c, const struct fwd_spec *spec,
		     uint16_t port, uint16_t *to)
{
	if (fwdspec_lookup(spec, port, to))
		return true;
	/* in namespace mode "auto" follows the namespace (fwd_auto.c) */
	if (!spec->follow || conf_ns_mode(&c->conf) || !port ||
	    fwd_excluded(spec, port))
		return false;
	if (to)
		*to = port;
	return true;
}

/**
 * fwd_guest_port() - where in the guest a connection accepted on a
 *		      listener goes
 * @c:		execution context
 * @l:		the listener
 * @fd:		the accepted connection
 * @to:		set to the guest port
 * @to_addr:	set to the guest address, :: for the guest's own
 *
 * A listener taking every forwarded port (sk_lookup) accepts connections
 * whose local port is the one the client asked for: the rules map that
 * port as they would map a per-port listener's.
 *
 * Return: 0 on success, -1 if the connection's port is not forwarded (a
 *	   client connecting to the listener's own port directly) or only
 *	   to a guest address of the other family
 */
int fwd_guest_port(const struct ctx *c, const struct fwd_listener *l, int fd,
		   uint16_t *to, struct in6_addr *to_addr)
{
	const struct fwd_rule *r;
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	struct in6_addr a;
	uint16_t port;

	if (!l->any_port) {
		*to = l->guest_port;
		*to_addr = l->to_addr;
		return 0;
	}
	if (getsockname(fd, (struct sockaddr *)&sa, &sl))
		return -1;
	inany_from_sockaddr(&sa, &a, &port);
	*to_addr = in6addr_any;
	r = fwdspec_find(&c->conf.tcp_fwd, port);
	if (!r)		/* "auto" for a VM, or not forwarded */
		return fwd_port_lookup(c, &c->conf.tcp_fwd, port, to) ? 0 : -1;
	if (!IN6_IS_ADDR_UNSPECIFIED(&r->to_addr)) {
		if (inany_is4(&r->to_addr) == l->v6)
			return -1;
		*to_addr = r->to_addr;
	}
	*to = fwdspec_to(r, port);
	return 0;
}

/**
 * fwd_inbound_peer() - the address the guest sees a forwarded port's
 *			client at
 * @c:		execution context
 * @raddr:	the client's address (v4-mapped for IPv4), replaced if it
 *		is the pod's own
 *
 * A client in the pod itself, on its loopback or one of its addresses,
 * which are the guest's own as the guest sees them, would be a martian to
 * the guest or itself: as passt, it is presented as the gateway for IPv4,
 * and for IPv6 as netshim's link-local address.
 *
 * Return: true if @raddr was replaced
 */
bool fwd_inbound_peer(const struct ctx *c, struct in6_addr *raddr)
{
	struct in6_addr gaddr;

	if (inany_is4(raddr)) {
		gaddr = gaddr_inbound(c, false);
		if (!inany_eq(raddr, &gaddr) && !inany_is_loopback(raddr))
			return false;
		*raddr = inany_from4(c->conf.gw4);
		return true;
	}
	gaddr = gaddr_inbound(c, true);
	if (!inany_eq(raddr, &c->conf.addr6) && !inany_eq(raddr, &gaddr) &&
	    !IN6_IS_ADDR_LOOPBACK(raddr) && !IN6_IS_ADDR_LINKLOCAL(raddr))
		return false;
	*raddr = c->conf.our_ll6;
	return true;
}

/**
 * fwd_lookup_fits() - tell if a TCP spec is for the sk_lookup program
 * @c:		execution context
 * @spec:	-t spec
 *
 * Return: 1 for "all", ranges, exclusions and "auto" for a VM, 0 for a
 *	   list of single ports (a few sockets do) or rules with an address
 *	   or interface (their sockets bind those), -1 if "auto" for a VM
 *	   comes with such rules (reported)
 */
static int fwd_lookup_fits(const struct ctx *c, const struct fwd_spec *spec)
{
	bool follow = spec->follow && !conf_ns_mode(&c->conf), many = false;
	bool excl_only = spec->n > 0;
	const struct fwd_rule *r;
	int i;

	for (i = 0; i < spec->n; i++) {
		r = &spec->rule[i];
		if (r->exclude)
			continue;
		excl_only = false;
		if (*r->bind || *r->dev) {
			if (!follow)
				return 0;
			err("-t auto for a VM forwards through one socket: "
			    "rules with an address or interface (%s%s%s/%u) "
			    "are not possible with it", r->bind,
			    *r->dev ? "%" : "", r->dev, r->first);
			return -1;
		}
		if (r->last > r->first)
			many = true;
	}
	/* "ADDR/all": a socket bound to ADDR for each port, as passt's */
	r = &spec->all_rule;
	if (*r->bind || *r->dev) {
		if (!follow)
			return 0;
		err("-t auto for a VM forwards through one socket: \"all\" "
		    "on an address or interface (%s%s%s/all) is not possible "
		    "with it", r->bind, *r->dev ? "%" : "", r->dev);
		return -1;
	}
	return spec->all || follow || excl_only || many;
}

/**
 * fwd_lookup_start() - load the sk_lookup program over our two listeners,
 *			the pod's own listeners left to the pod
 * @c:		execution context, in the pod's namespace, privileged
 * @fwd:	ports to forward
 * @fd4:	the IPv4 listener, -1 for none
 * @fd6:	the IPv6 one, -1 for none
 *
 * Our two sockets were noted as ours when opened (fwd_open_one()): the
 * scan leaves them out.
 *
 * Return: 0 on success, a negative error (for bpf_why()) on failure
 */
int fwd_lookup_start(struct ctx *c, const struct portset *fwd, int fd4,
		     int fd6)
{
	struct portset pod;
	int ret;

	if (podwatch_scan(c, IPPROTO_TCP, &pod)) {
		ret = -errno;
		warn("sk_lookup: cannot list the pod's listening sockets: %m");
		return ret;
	}
	return sk_lookup_start(c, fwd, fd4, fd6, &pod);
}

/**
 * fwd_lookup_timer() - once a second: the pod's own listeners, scanned
 *			again for the sk_lookup program
 * @c:		execution context
 *
 * Every listener counts, loopback ones too: the program also sees
 * connections to the pod's loopback addresses.
 */
void fwd_lookup_timer(struct ctx *c)
{
	struct portset pod;

	if (!c->sk_lookup)
		return;
	sk_lookup_pod(c, podwatch_scan(c, IPPROTO_TCP, &pod) ? NULL : &pod);
}

/**
 * fwd_listen_lookup() - forward TCP ports through one socket per family
 * @c:		execution context
 * @spec:	-t spec
 * @ref:	epoll reference type; the index is the listener's
 * @lst:	filled in: the listeners, sized here at start-up
 * @n:		filled in: their number
 *
 * The listeners are bound to a loopback address and a port the kernel
 * picks: the program hands them connections to any address and forwarded
 * port, and they take no port a pod process could want on its addresses.
 *
 * Return: 0 on success, 1 to bind one socket per port instead (--bpf off,
 *	   or auto and the program could not be loaded, said once), -1 to
 *	   exit (--bpf require, or "auto" for a VM, without the program)
 */
static int fwd_listen_lookup(struct ctx *c, const struct fwd_spec *spec,
			     enum epref_type ref, struct fwd_listener **lst,
			     uint32_t *n)
{
	bool follow = spec->follow && !conf_ns_mode(&c->conf);
	int fds[2] = { -1, -1 }, ret, v6;
	struct portset fwd = { { 0 } };
	uint32_t port, count = 0;
	char why[256];

	if (!bpf_wanted(&c->conf)) {
		if (!follow)
			return 1;
		err("-t auto for a VM needs the eBPF sk_lookup program, and "
		    "--bpf off forbids loading it");
		return -1;
	}
	for (port = 1; port <= 65535; port++) {
		if (fwd_port_lookup(c, spec, (uint16_t)port, NULL)) {
			portset_add(&fwd, (uint16_t)port);
			count++;
		}
	}
	*lst = calloc(2, sizeof(**lst));
	if (!*lst) {
		err("out of memory for the forwarded TCP ports");
		return -1;
	}

	for (v6 = 0; v6 <= 1; v6++) {
		struct fwd_listener *l = &(*lst)[*n];
		struct in6_addr a = in6addr_loopback;

		if (!(v6 ? c->conf.v6 : c->conf.v4))
			continue;
		if (!v6)
			a = inany_from4((struct in_addr){ htonl(INADDR_LOOPBACK) });
		if (fwd_open_one(c, SOCK_STREAM, ref, &a, "", 0, l, *n)) {
			ret = -errno;
			goto fail;
		}
		l->any_port = true;
		fds[v6] = l->fd;
		(*n)++;
		/* One queue for every port: as deep as the kernel allows
		 * (net.core.somaxconn caps it), not a single port's
		 */
		if (listen(l->fd, FWD_LOOKUP_BACKLOG)) {
			ret = -errno;
			goto fail;
		}
	}
	ret = fwd_lookup_start(c, &fwd, fds[0], fds[1]);
	if (ret)
		goto fail;
	info("forwarding %u TCP ports to the guest through one listening "
	     "socket per family (eBPF sk_lookup): ports pod processes "
	     "listen on stay theirs", count);
	return 0;

fail:
	while (*n)
		fwd_close_last(c, &(*lst)[--(*n)]);
	free(*lst);
	*lst = NULL;
	if (follow) {
		err("-t auto for a VM needs the eBPF sk_lookup program, and "
		    "it cannot be loaded: %s", bpf_why(ret, why, sizeof(why)));
		return -1;
	}
	if (bpf_fallback(&c->conf, "sk_lookup program",
			 "one socket per forwarded TCP port", ret))
		return -1;
	return 1;
}

/**
 * struct fwd_bind - the listeners of a spec being opened
 * @proto:	"TCP" or "UDP", for the logs
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @ref:	epoll reference type; the index is the listener's
 * @all:	the spec has "all": ports held by pod processes are skipped
 * @fd_budget:	with @all, the descriptors the listeners may take
 * @lst:	the listeners, sized at start-up
 * @n:		their number so far
 */
struct fwd_bind {
	const char *proto;
	int type;
	enum epref_type ref;
	bool all;
	unsigned int fd_budget;
	struct fwd_listener *lst;
	uint32_t n;
};

/**
 * fwd_bind_one() - open one listener of a port and keep it
 * @c:		execution context
 * @b:		the spec's listeners
 * @r:		the port's rule
 * @a:		address to bind, NULL for both families (fwd_open_one())
 * @port:	pod port
 *
 * Return: 1 if kept, 0 if it cannot be bound (errno set), -1 if it takes
 *	   a descriptor beyond the budget of "all" (closed, reported)
 */
static int fwd_bind_one(struct ctx *c, struct fwd_bind *b,
			const struct fwd_rule *r, const struct in6_addr *a,
			uint16_t port)
{
	struct fwd_listener *l = &b->lst[b->n];

	if (fwd_open_one(c, b->type, b->ref, a, r->dev, port, l, b->n))
		return 0;
	if (b->all && l->fd >= (int)b->fd_budget) {
		fwd_close_last(c, l);
		warn("%s ports from %u on not forwarded: half the descriptor limit (%u) is kept for connections and flows",
		     b->proto, port, b->fd_budget * 2);
		return -1;
	}
	l->to_addr = r->to_addr;
	l->guest_port = fwdspec_to(r, port);
	b->n++;
	return 1;
}

/**
 * fwd_bind_port() - the listeners of one forwarded port
 * @c:		execution context (enabled families)
 * @b:		the spec's listeners
 * @r:		the port's rule
 * @port:	pod port
 *
 * One socket for both families where the rule binds no address and
 * forwards to the guest's own addresses and the pod has both; else, or
 * if a pod process holds the port in one family, one socket per family
 * the rule takes.
 *
 * Return: listeners kept (0: none, errno set), -1 past the budget of
 *	   "all"
 */
static int fwd_bind_port(struct ctx *c, struct fwd_bind *b,
			 const struct fwd_rule *r, uint16_t port)
{
	bool any_to = IN6_IS_ADDR_UNSPECIFIED(&r->to_addr);
	int kept = 0, rc, v6;

	if (!*r->bind && any_to && c->conf.v4 && c->conf.v6) {
		rc = fwd_bind_one(c, b, r, NULL, port);
		if (rc)
			return rc;
	}
	for (v6 = 0; v6 <= 1; v6++) {
		struct in6_addr a;

		/* A guest address takes its own family only */
		if (!(v6 ? c->conf.v6 : c->conf.v4) ||
		    !fwd_bind_addr(r->bind, v6, &a) ||
		    (!any_to && inany_is4(&r->to_addr) == v6))
			continue;
		rc = fwd_bind_one(c, b, r, &a, port);
		if (rc < 0)
			return rc;
		kept += rc;
	}
	return kept;
}

/**
 * fwd_listen() - bind every forwarded pod port of a spec
 * @c:		execution context (enabled families)
 * @spec:	-t or -u spec
 * @type:	SOCK_STREAM (listening) or SOCK_DGRAM
 * @ref:	epoll reference type; the index is the listener's
 * @lst:	filled in: the listeners, sized here at start-up
 * @n:		filled in: their number
 *
 * Return: 0 on success, -1 if a named port cannot be bound (logged)
 */
int fwd_listen(struct ctx *c, const struct fwd_spec *spec, int type,
	       enum epref_type ref, struct fwd_listener **lst, uint32_t *n)
{
	struct fwd_bind b = { .proto = type == SOCK_STREAM ? "TCP" : "UDP",
			      .type = type, .ref = ref, .all = spec->all };
	uint32_t port, max = 0;
	struct rlimit rl;
	uint16_t to;

	*n = 0;
	if (type == SOCK_STREAM) {
		int fits = fwd_lookup_fits(c, spec), ret;

		if (fits < 0)
			return -1;
		if (fits) {
			ret = fwd_listen_lookup(c, spec, ref, lst, n);
			if (ret <= 0)
				return ret;
		}
	}
	if (!spec->all && !spec->n)
		return 0;
	/* "all" (KubeVirt's default) would take every descriptor, and the
	 * VMM socket, connections and flows would get none
	 */
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur / 2 > INT_MAX)
		b.fd_budget = INT_MAX;
	else
		b.fd_budget = rl.rlim_cur / 2;
	/* Room for two a port: one per family where one cannot take both */
	for (port = 1; port <= 65535; port++)
		if (fwdspec_lookup(spec, (uint16_t)port, &to))
			max += 2;
	b.lst = calloc(max ? max : 1, sizeof(*b.lst));
	if (!b.lst) {
		err("out of memory for the forwarded %s ports", b.proto);
		return -1;
	}
	*lst = b.lst;

	for (port = 1; port <= 65535; port++) {
		const struct fwd_rule *r = fwdspec_find(spec, (uint16_t)port);
		int kept;

		if (!r)
			continue;
		kept = fwd_bind_port(c, &b, r, (uint16_t)port);
		if (kept < 0)
			break;
		if (!kept && !IN6_IS_ADDR_UNSPECIFIED(&r->to_addr) &&
		    !(inany_is4(&r->to_addr) ? c->conf.v4 : c->conf.v6)) {
			err("%s port %u forwards to an IPv%c address, and "
			    "IPv%c is off", b.proto, port,
			    inany_is4(&r->to_addr) ? '4' : '6',
			    inany_is4(&r->to_addr) ? '4' : '6');
			return -1;
		}
		if (!kept && !spec->all) {
			err("cannot bind %s port %u for forwarding: %m",
			    b.proto, port);
			return -1;
		}
	}
	*n = b.n;
	if (*n)
		info("forwarding %u %s sockets to the guest", *n, b.proto);
	return 0;
}
