// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - -t auto: forward the ports the namespace listens on
 *
 * Once a second, the listening TCP sockets of the namespace are listed
 * (portwatch.c) and the pod's ports follow: a port that gets a listener
 * there gets one of ours in the pod, on both families, forwarding to the
 * same port of the namespace; when the namespace's listener goes, ours is
 * closed.  A port some process of the pod already holds is left to it:
 * our bind() fails and we try again at the next scan, quietly.
 *
 * Listeners bound to the namespace's loopback only are not followed:
 * forwarded connections arrive over the tap, at its address.
 *
 * The table is sized at start-up; a listener appearing when it is full is
 * reported once and not followed.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "fwd.h"
#include "fwd_auto.h"
#include "log.h"
#include "netns.h"
#include "portwatch.h"
#include "tcp/tcp.h"

/* Ports followed at once */
#define FWD_AUTO_MAX		1024

/**
 * struct fwd_auto_port - one followed port, its listeners in the pod
 * @port:	the port, 0 for a free slot
 * @l:		IPv4 and IPv6 listeners, fd -1 if none
 */
struct fwd_auto_port {
	uint16_t port;
	struct fwd_listener l[2];
};

/**
 * struct fwd_auto - what -t auto follows
 * @pw:		sock_diag socket inside the namespace
 * @cur:	ports we forward now
 * @seen:	ports the last scan found listening in the namespace
 * @skip:	ports never to take: those -t names explicitly
 * @held:	ports a pod process held at our last try, reported once
 * @full_logged: the table filled up, reported once
 * @p:		slots
 */
struct fwd_auto {
	struct portwatch pw;
	struct portset cur, seen, skip, held;
	bool full_logged;
	struct fwd_auto_port p[FWD_AUTO_MAX];
};

/**
 * fwd_auto_open_in() - inside the namespace: open the sock_diag socket
 * @c:		execution context
 *
 * Return: 0 on success, -1 on failure (reported)
 */
static int fwd_auto_open_in(struct ctx *c)
{
	if (portwatch_open(&c->fwd_auto->pw)) {
		err("-t auto: cannot open a sock_diag socket: %m");
		return -1;
	}
	return 0;
}

/**
 * fwd_auto_init() - size the table, open the watch in the namespace
 * @c:		execution context, in namespace mode after netns_tap()
 *
 * Return: 0 on success or without -t auto, -1 on failure (reported)
 */
int fwd_auto_init(struct ctx *c)
{
	struct fwd_auto *fa;
	int i;

	if (!c->conf.tcp_fwd.follow)
		return 0;
	fa = calloc(1, sizeof(*fa));
	if (!fa) {
		err("out of memory for -t auto");
		return -1;
	}
	for (i = 0; i < FWD_AUTO_MAX; i++)
		fa->p[i].l[0].fd = fa->p[i].l[1].fd = -1;
	fa->pw.fd = -1;
	/* Ports -t names explicitly have our listeners already */
	for (i = 1; i <= 65535; i++)
		if (c->conf.tcp_fwd.n &&
		    conf_fwd_lookup(&c->conf.tcp_fwd, (uint16_t)i, NULL))
			portset_add(&fa->skip, (uint16_t)i);
	c->fwd_auto = fa;
	if (netns_call(c, fwd_auto_open_in))
		return -1;
	info("TCP ports forwarded: those the namespace listens on (auto)");
	return 0;
}

/**
 * fwd_auto_bind() - start forwarding a port
 * @c:		execution context
 * @port:	the port
 *
 * Return: true if at least one family is bound
 */
static bool fwd_auto_bind(struct ctx *c, uint16_t port)
{
	struct fwd_auto *fa = c->fwd_auto;
	struct fwd_auto_port *p = NULL;
	bool ok = false;
	int i, v6;

	for (i = 0; i < FWD_AUTO_MAX && !p; i++)
		if (!fa->p[i].port)
			p = &fa->p[i];
	if (!p) {
		if (!fa->full_logged)
			warn("-t auto: %d ports followed already, not port %u",
			     FWD_AUTO_MAX, port);
		fa->full_logged = true;
		return false;
	}
	for (v6 = 0; v6 <= 1; v6++) {
		struct in6_addr a;

		if (!(v6 ? c->conf.v6 : c->conf.v4))
			continue;
		fwd_bind_addr("", v6, &a);
		if (fwd_open_one(c, SOCK_STREAM, EPREF_TCP_AUTO, &a, port,
				 &p->l[v6], (uint32_t)(p - fa->p) * 2 + v6))
			continue;
		p->l[v6].guest_port = port;
		ok = true;
	}
	if (!ok) {
		/* A pod process has it: its port, not ours */
		if (!portset_has(&fa->held, port))
			info("-t auto: TCP port %u is in use in the pod: "
			     "not forwarded", port);
		portset_add(&fa->held, port);
		return false;
	}
	p->port = port;
	portset_del(&fa->held, port);
	debug("-t auto: forwarding TCP port %u", port);
	return true;
}

/**
 * fwd_auto_release() - stop forwarding a port
 * @c:		execution context
 * @port:	the port
 */
static void fwd_auto_release(struct ctx *c, uint16_t port)
{
	struct fwd_auto *fa = c->fwd_auto;
	int i, v6;

	for (i = 0; i < FWD_AUTO_MAX; i++) {
		if (fa->p[i].port != port)
			continue;
		for (v6 = 0; v6 <= 1; v6++) {
			if (fa->p[i].l[v6].fd < 0)
				continue;
			close(fa->p[i].l[v6].fd);
			fa->p[i].l[v6].fd = -1;
		}
		fa->p[i].port = 0;
	}
	debug("-t auto: TCP port %u released", port);
}

/**
 * fwd_auto_timer() - once a second: make the pod's ports follow
 * @c:		execution context
 */
void fwd_auto_timer(struct ctx *c)
{
	struct fwd_auto *fa = c->fwd_auto;
	unsigned int from = 0;
	bool bind;
	int port;

	if (!fa)
		return;
	if (portwatch_scan(&fa->pw, IPPROTO_TCP, true, &fa->seen)) {
		debug("-t auto: listing the namespace's listeners: %m");
		return;
	}
	while ((port = portwatch_next_change(&fa->cur, &fa->seen, &fa->skip,
					     from, &bind)) >= 0) {
		if (!bind) {
			fwd_auto_release(c, (uint16_t)port);
			portset_del(&fa->cur, (uint16_t)port);
		} else if (fwd_auto_bind(c, (uint16_t)port)) {
			portset_add(&fa->cur, (uint16_t)port);
		}
		from = (unsigned int)port + 1;
	}
}

/**
 * fwd_auto_ready() - a connection to a followed port
 * @c:		execution context
 * @idx:	slot times two, plus one for IPv6
 */
void fwd_auto_ready(struct ctx *c, uint32_t idx)
{
	struct fwd_auto *fa = c->fwd_auto;

	if (!fa || idx / 2 >= FWD_AUTO_MAX ||
	    fa->p[idx / 2].l[idx % 2].fd < 0)
		return;
	tcp_accept_fwd(c, &fa->p[idx / 2].l[idx % 2]);
}
