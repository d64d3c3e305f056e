// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - sockets on the pod's forwarded ports (-t, -u)
 *
 * One socket per forwarded port and family, bound at start-up (before
 * privileges go, so ports below 1024 work).  With "all", ports some other
 * process of the pod already holds are skipped; an explicitly named port
 * that cannot be bound is an error.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "fwd.h"
#include "inany.h"
#include "log.h"

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
	int fd, one = 1;

	fd = socket(v6 ? AF_INET6 : AF_INET,
		    type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (v6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (type == SOCK_STREAM)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* --freebind: an address the pod may only get later */
	if (c->conf.freebind)
		setsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
			   v6 ? IPV6_FREEBIND : IP_FREEBIND, &one, sizeof(one));
	if ((*dev && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev,
				strlen(dev) + 1)) ||
	    bind(fd, (struct sockaddr *)&sa, sl) ||
	    (type == SOCK_STREAM && listen(fd, 128)) ||
	    epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	l->fd = fd;
	l->v6 = v6;
	return 0;
}

/**
 * fwd_close_last() - undo fwd_open_one() for a listener not kept
 * @c:		execution context
 * @l:		listener
 */
static void fwd_close_last(struct ctx *c, struct fwd_listener *l)
{
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, l->fd, NULL);
	close(l->fd);
	l->fd = -1;
}

/**
 * fwd_rule_of() - the rule that forwards a port
 * @spec:	forwarding spec
 * @port:	pod port
 *
 * Return: the last rule holding @port, NULL for none ("all")
 */
static const struct fwd_rule *fwd_rule_of(const struct fwd_spec *spec,
					  uint16_t port)
{
	const struct fwd_rule *rule = NULL;
	int i;

	for (i = 0; i < spec->n; i++) {
		const struct fwd_rule *r = &spec->rule[i];

		if (!r->exclude && port >= r->first && port <= r->last)
			rule = r;
	}
	return rule;
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
		if (conf_fwd_lookup(spec, (uint16_t)port, &to))
			max += 2;
	*lst = calloc(max ? max : 1, sizeof(**lst));
	if (!*lst)
		return -1;

	for (port = 1; port <= 65535; port++) {
		const struct fwd_rule *r = fwd_rule_of(spec, (uint16_t)port);
		const char *bind = r ? r->bind : "", *dev = r ? r->dev : "";
		bool ok = false;
		int v6;

		if (!conf_fwd_lookup(spec, (uint16_t)port, &to))
			continue;
		for (v6 = 0; v6 <= 1; v6++) {
			struct in6_addr a;

			if (!(v6 ? c->conf.v6 : c->conf.v4) ||
			    !fwd_bind_addr(bind, v6, &a))
				continue;
			if (fwd_open_one(c, type, ref, &a, dev, (uint16_t)port,
					 &(*lst)[*n], *n))
				continue;
			if (spec->all && (*lst)[*n].fd >= (int)fd_budget) {
				fwd_close_last(c, &(*lst)[*n]);
				warn("%s ports from %u on not forwarded: half the descriptor limit (%u) is kept for connections and flows",
				     proto, port, fd_budget * 2);
				goto out;
			}
			(*lst)[(*n)++].guest_port = to;
			ok = true;
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
