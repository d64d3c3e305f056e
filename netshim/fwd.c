// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - sockets on the pod's forwarded ports (-t, -u)
 *
 * One socket per forwarded port and family, bound at start-up (before
 * privileges go, so ports below 1024 work).  With "all", ports some other
 * process of the pod already holds are skipped; an explicitly named port
 * that cannot be bound is an error.
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

#include "fdpool.h"
#include "fwd.h"
#include "inany.h"
#include "log.h"
#include "netns.h"
#include "podwatch.h"
#include "bpf/bpf.h"
#include "bpf/sk_lookup.h"
#include "nssock.h"
#include "fwdspec.h"

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
 * fwd_open_one() - open one forwarded port in one family
 * @c:		execution context
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @ref:	epoll reference type for the socket
 * @a:		address to bind
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
	bool v6 = !inany_is4(a);
	struct sockaddr_storage sa;
	socklen_t sl = inany_sockaddr(&sa, a, port);
	int fd, one = 1, e;

	fd = fdpool_take_inet(type, a, port);
	if (fd >= 0)
		goto watch;
	fd = socket(v6 ? AF_INET6 : AF_INET,
		    type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (v6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
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
	podwatch_own(c, fd);
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
	ret = sk_lookup_start(c, &fwd, fds[0], fds[1]);
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
 * fwd_listen() - bind every forwarded pod port of a spec, both families
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
	const char *proto = type == SOCK_STREAM ? "TCP" : "UDP";
	uint32_t port, max = 0;
	unsigned int fd_budget;
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
		fd_budget = INT_MAX;
	else
		fd_budget = rl.rlim_cur / 2;
	for (port = 1; port <= 65535; port++)
		if (fwdspec_lookup(spec, (uint16_t)port, &to))
			max += 2;
	*lst = calloc(max ? max : 1, sizeof(**lst));
	if (!*lst) {
		err("out of memory for the forwarded %s ports", proto);
		return -1;
	}

	for (port = 1; port <= 65535; port++) {
		const struct fwd_rule *r = fwdspec_find(spec, (uint16_t)port);
		bool ok = false, any_to;
		int v6;

		if (!r)
			continue;
		to = fwdspec_to(r, (uint16_t)port);
		any_to = IN6_IS_ADDR_UNSPECIFIED(&r->to_addr);
		for (v6 = 0; v6 <= 1; v6++) {
			struct in6_addr a;

			/* A guest address takes its own family only */
			if (!(v6 ? c->conf.v6 : c->conf.v4) ||
			    !fwd_bind_addr(r->bind, v6, &a) ||
			    (!any_to && inany_is4(&r->to_addr) == v6))
				continue;
			if (fwd_open_one(c, type, ref, &a, r->dev, (uint16_t)port,
					 &(*lst)[*n], *n))
				continue;
			if (spec->all && (*lst)[*n].fd >= (int)fd_budget) {
				fwd_close_last(c, &(*lst)[*n]);
				warn("%s ports from %u on not forwarded: half the descriptor limit (%u) is kept for connections and flows",
				     proto, port, fd_budget * 2);
				goto out;
			}
			(*lst)[*n].to_addr = r->to_addr;
			(*lst)[(*n)++].guest_port = to;
			ok = true;
		}
		if (!ok && !any_to &&
		    !(inany_is4(&r->to_addr) ? c->conf.v4 : c->conf.v6)) {
			err("%s port %u forwards to an IPv%c address, and "
			    "IPv%c is off", proto, port,
			    inany_is4(&r->to_addr) ? '4' : '6',
			    inany_is4(&r->to_addr) ? '4' : '6');
			return -1;
		}
		if (!ok && !spec->all) {
			err("cannot bind %s port %u for forwarding: %m",
			    proto, port);
			return -1;
		}
	}
out:
	if (*n)
		info("forwarding %u %s sockets to the guest", *n, proto);
	return 0;
}
