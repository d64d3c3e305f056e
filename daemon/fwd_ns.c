// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - -T, -U: ports of the namespace's loopback to the pod's loopback
 *
 * pasta's -T: a process in the namespace connecting to its own
 * 127.0.0.1:PORT or [::1]:PORT reaches a server on the pod's loopback.
 * The listeners are made inside the namespace at start-up (by the clone
 * of netns.c, sharing our descriptors); each connection accepted there is
 * joined to a new connection to the pod's loopback with splice(): no
 * frames, no copy through netshim.  -U does the same for UDP: datagrams
 * to the namespace's loopback port are relayed, socket to socket, to the
 * pod's (udp/splice.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "fwd_ns.h"
#include "net/fwd.h"
#include "netshim/fwdspec.h"
#include "netshim/inany.h"
#include "netshim/log.h"
#include "netshim/netns.h"
#include "netshim/nssock.h"
#include "tcp/splice.h"
#include "udp/splice.h"


/**
 * fwd_ns_open_spec() - inside the namespace: bind one spec's ports on its
 *			loopback
 * @c:		execution context
 * @spec:	-T or -U spec
 * @type:	SOCK_STREAM (listening) or SOCK_DGRAM
 * @ref:	epoll reference type; the index is the listener's
 * @lst:	filled in: the listeners, sized here
 * @n:		filled in: their number
 *
 * Return: 0 on success, -1 if a port cannot be bound (reported)
 */
static int fwd_ns_open_spec(struct ctx *c, const struct fwd_spec *spec,
			    int type, enum epref_type ref,
			    struct fwd_listener **lst, uint32_t *n)
{
	uint32_t port, max = 0;
	uint16_t to;
	int v6;

	for (port = 1; port <= 65535; port++)
		if (fwdspec_lookup(spec, (uint16_t)port, &to))
			max += 2;
	if (!max)
		return 0;
	*lst = calloc(max, sizeof(**lst));
	if (!*lst) {
		err("out of memory for -T, -U");
		return -1;
	}
	for (port = 1; port <= 65535; port++) {
		if (!fwdspec_lookup(spec, (uint16_t)port, &to))
			continue;
		for (v6 = 0; v6 <= 1; v6++) {
			struct in_addr lo4 = { htonl(INADDR_LOOPBACK) };
			struct in6_addr a = v6 ? in6addr_loopback :
						 inany_from4(lo4);
			struct fwd_listener *l = &(*lst)[*n];

			if (fwd_open_one(c, type, ref, &a, "", (uint16_t)port,
					 l, *n)) {
				err("%s: cannot bind %s port %u in the "
				    "namespace: %m",
				    type == SOCK_STREAM ? "-T" : "-U",
				    v6 ? "[::1]" : "127.0.0.1", port);
				return -1;
			}
			l->guest_port = to;
			(*n)++;
		}
	}
	return 0;
}

/**
 * fwd_ns_open_in() - inside the namespace: the -T and -U sockets
 * @c:		execution context
 *
 * Return: 0 on success, -1 if a port cannot be bound (reported)
 */
static int fwd_ns_open_in(struct ctx *c)
{
	return fwd_ns_open_spec(c, &c->conf.tcp_ns_fwd, SOCK_STREAM,
				EPREF_TCP_NS, &c->ns_lst, &c->ns_n) ||
	       fwd_ns_open_spec(c, &c->conf.udp_ns_fwd, SOCK_DGRAM,
				EPREF_UDP_NS, &c->ns_ulst, &c->ns_un);
}

/**
 * fwd_ns_init() - make the -T and -U sockets in the namespace
 * @c:		execution context, in namespace mode after netns_tap()
 *
 * Return: 0 on success or without -T and -U, -1 on failure (reported)
 */
int fwd_ns_init(struct ctx *c)
{
	if (!c->conf.tcp_ns_fwd.n && !c->conf.udp_ns_fwd.n)
		return 0;
	if (netns_call(c, fwd_ns_open_in))
		return -1;
	if (c->ns_n)
		info("forwarding %u TCP sockets of the namespace's loopback "
		     "to the pod's", c->ns_n);
	if (c->ns_un)
		info("forwarding %u UDP sockets of the namespace's loopback "
		     "to the pod's", c->ns_un);
	return 0;
}

/**
 * fwd_ns_listener_pool() - where the -T or -U sockets are kept, for the
 *			    control socket to change them (ctl_fwd.c)
 * @udp:	-U's, else -T's
 * @lst:	set to the array's pointer: index i is EPREF_TCP_NS's or
 *		EPREF_UDP_NS's i
 * @n:		set to its count's
 */
void fwd_ns_listener_pool(struct ctx *c, bool udp,
			  struct fwd_listener ***lst, uint32_t **n)
{
	*lst = udp ? &c->ns_ulst : &c->ns_lst;
	*n = udp ? &c->ns_un : &c->ns_n;
}

/**
 * fwd_ns_accept() - a connection on the namespace's loopback: join it to
 *		     the pod's loopback
 * @c:		execution context
 * @l:		the listener (-T, or -T auto's)
 */
void fwd_ns_accept(struct ctx *c, const struct fwd_listener *l)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int a, b;

	a = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (a < 0)
		return;
	a6.sin6_port = a4.sin_port = htons(l->guest_port);
	b = socket(l->v6 ? AF_INET6 : AF_INET,
		   SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (b >= 0)
		nssock_bufs(b);
	if (b < 0 ||
	    (connect(b, l->v6 ? (struct sockaddr *)&a6 :
				(struct sockaddr *)&a4,
		     l->v6 ? sizeof(a6) : sizeof(a4)) &&
	     errno != EINPROGRESS)) {
		struct linger lg = { 1, 0 };

		debug("-T: to the pod's port %u: %m", l->guest_port);
		setsockopt(a, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(a);
		if (b >= 0)
			close(b);
		return;
	}
	c->cnt.tcp_spliced++;
	splice_join(c, a, b, true);
}

/**
 * fwd_ns_ready() - a connection on a -T port
 * @c:		execution context
 * @idx:	listener index
 */
void fwd_ns_ready(struct ctx *c, uint32_t idx)
{
	if (idx < c->ns_n)
		fwd_ns_accept(c, &c->ns_lst[idx]);
}

/**
 * fwd_ns_udp_input() - datagrams to the namespace's loopback: relay them
 *			to the pod's loopback
 * @c:		execution context
 * @l:		the socket (-U, or -U auto's)
 */
void fwd_ns_udp_input(struct ctx *c, const struct fwd_listener *l)
{
	int i;

	/* Only the namespace's loopback reaches these: all local flows */
	for (i = 0; i < 2; i++)
		if (!udp_splice_take_batch(c, l->fd, false, l->guest_port))
			break;
}

/**
 * fwd_ns_udp_ready() - datagrams to a -U port
 * @c:		execution context
 * @idx:	socket index
 */
void fwd_ns_udp_ready(struct ctx *c, uint32_t idx)
{
	if (idx < c->ns_un)
		fwd_ns_udp_input(c, &c->ns_ulst[idx]);
}

/**
 * fwd_ns_listeners() - the sockets of -T or -U, for an upgrade in place
 * @udp:	-U's, else -T's
 * @n:		set to their number
 *
 * Return: the listeners
 */
const struct fwd_listener *fwd_ns_listeners(const struct ctx *c, bool udp,
					   uint32_t *n)
{
	*n = udp ? c->ns_un : c->ns_n;
	return udp ? c->ns_ulst : c->ns_lst;
}
