// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - -t/-u/-T/-U auto: forward the ports the other side listens on
 *
 * Once a second, the listening TCP sockets and the bound, unconnected UDP
 * sockets of the namespace are listed (portwatch.c) and the pod's ports
 * follow: a port that gets a listener there gets one of ours in the pod,
 * for both families (one socket for both where it can, as -t and -u),
 * forwarding to the same port of the namespace; when
 * the namespace's listener goes, ours is closed.  A port some process of
 * the pod already holds is left to it: our bind() fails and we try again
 * at the next scan, quietly.
 *
 * Sockets bound to the namespace's loopback only are not followed:
 * forwarded traffic arrives over the tap, at its address.
 *
 * -T auto and -U auto are the same the other way, as pasta's: the pod's
 * listening TCP sockets and bound UDP sockets (any address, loopback
 * included: a sidecar on the pod's 127.0.0.1 is what a sandbox wants to
 * reach) are listed once a second, and the namespace's loopback gets a
 * listener on each of those ports, made there by the namespace helper,
 * joined to the pod's loopback (fwd_ns.c).  A port a process of the
 * namespace holds is left to it.  Our own sockets in the pod (-t, -u,
 * and those -t auto and -u auto follow) are left out of the pod's list by
 * their socket cookies (podwatch.c), or each side would mirror the
 * other's mirrors; a pod process sharing a port with one of them (on
 * another address) is still mirrored.
 *
 * The tables are sized at start-up; a listener appearing when one is full
 * is reported once and not followed.
 *
 * With the control socket (-c), the state is made for every protocol,
 * "auto" or not, and the ports each follows are changed at run time:
 * fwd_auto_set(), from pesto's rules with "auto-scan" (ctl_fwd.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "fwd_auto.h"
#include "fwd_ns.h"
#include "net/flow.h"
#include "net/fwd.h"
#include "net/podwatch.h"
#include "net/portwatch.h"
#include "netshim/fwdspec.h"
#include "netshim/log.h"
#include "netshim/migio.h"
#include "netshim/netns.h"
#include "netshim/nssock.h"
#include "tcp/tcp.h"
#include "udp/splice.h"
#include "udp/udp.h"

/**
 * struct fwd_auto_port - one followed port, its listeners in the pod
 * @port:	the port, 0 for a free slot
 * @l:		IPv4 and IPv6 listeners, fd -1 if none; a socket for both
 *		families is the IPv6 one
 */
struct fwd_auto_port {
	uint16_t port;
	struct fwd_listener l[2];
};

/**
 * struct fwd_auto_proto - what "auto" follows for one protocol
 * @on:		"auto" was given for it
 * @in_ns:	our listeners are in the namespace, following the pod's
 *		(-T, -U), rather than in the pod
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @name:	"TCP", "UDP", "-T TCP" or "-U UDP", for the logs
 * @ref:	epoll reference type of its listeners
 * @cur:	ports we forward now
 * @seen:	ports the last scan found bound in the namespace
 * @skip:	ports never to take: those the same option names explicitly
 * @held:	ports a pod process held at our last try, reported once
 * @full_logged: the table filled up, reported once
 * @p:		slots
 */
struct fwd_auto_proto {
	bool on;
	bool in_ns;
	int proto;
	const char *name;
	enum epref_type ref;
	struct portset cur, seen, skip, held;
	bool full_logged;
	struct fwd_auto_port p[FWD_AUTO_MAX];
};

/**
 * struct fwd_auto - the namespace's sock_diag socket, each option's state
 * @pw:		sock_diag socket inside the namespace (-t, -u auto); the
 *		pod's (-T, -U auto) is shared, in podwatch.c
 * @tcp:	-t auto
 * @udp:	-u auto
 * @tcp_ns:	-T auto
 * @udp_ns:	-U auto
 */
struct fwd_auto {
	struct portwatch pw;
	struct fwd_auto_proto tcp, udp, tcp_ns, udp_ns;
};

/**
 * fwd_auto_open_in() - inside the namespace: open the sock_diag socket
 * @c:		execution context
 *
 * Return: 0 on success, -1 on failure (reported)
 */
static int fwd_auto_open_in(struct ctx *c)
{
	if (!c->conf.tcp_fwd.follow && !c->conf.udp_fwd.follow &&
	    !*c->conf.ctl_path)
		return 0;
	if (portwatch_open(&c->fwd_auto->pw)) {
		err("auto forwarding: cannot open a sock_diag socket: %m");
		return -1;
	}
	return 0;
}

/**
 * fwd_auto_proto_init() - set one protocol's state up
 * @c:		execution context
 * @ap:		the state
 * @spec:	its -t or -u spec
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @ref:	epoll reference type of its listeners
 * @in_ns:	for -T and -U: listeners in the namespace, following the
 *		pod's; false for -t and -u
 */
static void fwd_auto_proto_init(struct ctx *c, struct fwd_auto_proto *ap,
				const struct fwd_spec *spec, int proto,
				enum epref_type ref, bool in_ns)
{
	unsigned int i;

	ap->on = spec->follow;
	ap->in_ns = in_ns;
	ap->proto = proto;
	if (in_ns)
		ap->name = proto == IPPROTO_TCP ? "-T TCP" : "-U UDP";
	else
		ap->name = proto == IPPROTO_TCP ? "TCP" : "UDP";
	ap->ref = ref;
	for (i = 0; i < FWD_AUTO_MAX; i++)
		ap->p[i].l[0].fd = ap->p[i].l[1].fd = -1;
	/* Ports the spec names explicitly (or "all") have our listeners
	 * already
	 */
	for (i = 1; (spec->n || spec->all) && i <= 65535; i++)
		if (fwdspec_lookup(spec, (uint16_t)i, NULL))
			portset_add(&ap->skip, (uint16_t)i);
	if (ap->on)
		info("%s ports forwarded: those the %s listens on (auto)",
		     ap->name, in_ns ? "pod" : "namespace");
	(void)c;
}

/**
 * fwd_auto_init() - size the tables, open the watch in the namespace
 * @c:		execution context, in namespace mode after netns_tap()
 *
 * Return: 0 on success or without "auto", -1 on failure (reported)
 */
int fwd_auto_init(struct ctx *c)
{
	struct fwd_auto *fa;

	const struct conf *cf = &c->conf;

	if (!cf->tcp_fwd.follow && !cf->udp_fwd.follow &&
	    !cf->tcp_ns_fwd.follow && !cf->udp_ns_fwd.follow &&
	    !*cf->ctl_path)
		return 0;
	fa = calloc(1, sizeof(*fa));
	if (!fa) {
		err("out of memory for auto forwarding");
		return -1;
	}
	fa->pw.fd = -1;
	fwd_auto_proto_init(c, &fa->tcp, &cf->tcp_fwd, IPPROTO_TCP,
			    EPREF_TCP_AUTO, false);
	fwd_auto_proto_init(c, &fa->udp, &cf->udp_fwd, IPPROTO_UDP,
			    EPREF_UDP_AUTO, false);
	fwd_auto_proto_init(c, &fa->tcp_ns, &cf->tcp_ns_fwd, IPPROTO_TCP,
			    EPREF_TCP_NS_AUTO, true);
	fwd_auto_proto_init(c, &fa->udp_ns, &cf->udp_ns_fwd, IPPROTO_UDP,
			    EPREF_UDP_NS_AUTO, true);
	c->fwd_auto = fa;
	/* -T and -U auto scan the pod through podwatch.c, opened already */
	return netns_call(c, fwd_auto_open_in);
}

/**
 * fwd_auto_bind_ns() - a listener on the namespace's loopback, for -T or
 *			-U auto
 * @c:		execution context
 * @ap:		the protocol's state
 * @port:	the port
 * @v6:		::1 rather than 127.0.0.1
 * @l:		filled in
 * @idx:	index of the epoll reference
 *
 * Return: 0 on success, -1 on failure (a process of the namespace holds
 * the port, or the helper is gone)
 */
static int fwd_auto_bind_ns(struct ctx *c, const struct fwd_auto_proto *ap,
			    uint16_t port, bool v6, struct fwd_listener *l,
			    uint32_t idx)
{
	int type = ap->proto == IPPROTO_TCP ? SOCK_STREAM : SOCK_DGRAM;
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = epref(ap->ref, idx) };
	int fd = nssock_listen_lo(c, type, v6, port);

	if (fd < 0)
		return -1;
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		return -1;
	}
	l->fd = fd;
	l->v6 = v6;
	return 0;
}

/**
 * fwd_auto_bind() - start forwarding a port
 * @c:		execution context
 * @ap:		the protocol's state
 * @port:	the port
 *
 * Return: true if at least one family is bound
 */
static bool fwd_auto_bind(struct ctx *c, struct fwd_auto_proto *ap,
			  uint16_t port)
{
	int type = ap->proto == IPPROTO_TCP ? SOCK_STREAM : SOCK_DGRAM;
	struct fwd_auto_port *p = NULL;
	bool ok = false, dual = false;
	int i, v6;

	for (i = 0; i < FWD_AUTO_MAX && !p; i++)
		if (!ap->p[i].port)
			p = &ap->p[i];
	if (!p) {
		if (!ap->full_logged)
			warn("%s auto: %d ports followed already, not port %u",
			     ap->name, FWD_AUTO_MAX, port);
		ap->full_logged = true;
		return false;
	}
	/* In the pod, one socket for both families, as -t and -u bind */
	if (!ap->in_ns && c->conf.v4 && c->conf.v6 &&
	    !fwd_open_one(c, type, ap->ref, NULL, "", port, &p->l[1],
			  (uint32_t)(p - ap->p) * 2 + 1)) {
		p->l[1].guest_port = port;
		dual = ok = true;
	}
	for (v6 = 0; v6 <= 1 && !dual; v6++) {
		uint32_t idx = (uint32_t)(p - ap->p) * 2 + v6;
		struct in6_addr a;

		if (!(v6 ? c->conf.v6 : c->conf.v4))
			continue;
		if (ap->in_ns) {
			if (fwd_auto_bind_ns(c, ap, port, v6, &p->l[v6], idx))
				continue;
		} else {
			fwd_bind_addr("", v6, &a);
			if (fwd_open_one(c, type, ap->ref, &a, "", port,
					 &p->l[v6], idx))
				continue;
		}
		p->l[v6].guest_port = port;
		ok = true;
	}
	if (!ok) {
		/* A process of that side has it: its port, not ours */
		if (!portset_has(&ap->held, port))
			info("%s auto: port %u is in use in the %s: not "
			     "forwarded", ap->name, port,
			     ap->in_ns ? "namespace" : "pod");
		portset_add(&ap->held, port);
		return false;
	}
	p->port = port;
	portset_del(&ap->held, port);
	debug("%s auto: forwarding port %u", ap->name, port);
	return true;
}

/**
 * fwd_auto_release() - stop forwarding a port
 * @c:		execution context
 * @ap:		the protocol's state
 * @port:	the port
 */
static void fwd_auto_release(struct ctx *c, struct fwd_auto_proto *ap,
			     uint16_t port)
{
	int i, v6;

	for (i = 0; i < FWD_AUTO_MAX; i++) {
		if (ap->p[i].port != port)
			continue;
		for (v6 = 0; v6 <= 1; v6++) {
			if (ap->p[i].l[v6].fd < 0)
				continue;
			/* UDP flows, local or not, reply through it */
			udp_splice_forget(c, ap->p[i].l[v6].fd);
			flow_forget_inbound(c, ap->p[i].l[v6].fd);
			podwatch_disown(c, ap->p[i].l[v6].fd);
			close(ap->p[i].l[v6].fd);
			ap->p[i].l[v6].fd = -1;
		}
		ap->p[i].port = 0;
	}
	debug("%s auto: port %u released", ap->name, port);
}

/**
 * fwd_auto_set() - change the ports one protocol follows, at run time
 * @c:		execution context
 * @udp:	UDP, else TCP
 * @in_ns:	-T or -U auto (listeners in the namespace), else -t or -u
 * @ports:	the ports to follow from now on; none turns "auto" off
 *
 * Ports followed now and no longer wanted are released at once; those
 * still wanted keep their listeners; new ones come with the next scan.
 */
void fwd_auto_set(struct ctx *c, bool udp, bool in_ns,
		  const struct portset *ports)
{
	struct fwd_auto *fa = c->fwd_auto;
	struct fwd_auto_proto *ap;
	unsigned int w;

	if (!fa)
		return;
	ap = in_ns ? (udp ? &fa->udp_ns : &fa->tcp_ns) :
		     (udp ? &fa->udp : &fa->tcp);
	ap->on = false;
	for (w = 0; w < PORTSET_WORDS; w++) {
		uint64_t gone = ap->cur.w[w] & ~ports->w[w];

		ap->skip.w[w] = ~ports->w[w];
		ap->on |= !!ports->w[w];
		for (; gone; gone &= gone - 1) {
			uint16_t port = (uint16_t)(w * 64 +
						   __builtin_ctzll(gone));

			fwd_auto_release(c, ap, port);
			portset_del(&ap->cur, port);
		}
	}
}

/**
 * fwd_auto_follow() - make one protocol's pod ports follow a scan
 * @c:		execution context
 * @fa:		watch state
 * @ap:		the protocol's state
 */
static void fwd_auto_follow(struct ctx *c, struct fwd_auto *fa,
			    struct fwd_auto_proto *ap)
{
	unsigned int from = 0;
	bool bind;
	int port, rc;

	if (!ap->on)
		return;
	/* The namespace's loopback-only sockets are left out: forwarded
	 * traffic reaches the namespace over the tap.  The pod's are not:
	 * they are what -T and -U auto are for.
	 */
	if (ap->in_ns)
		rc = podwatch_scan(c, ap->proto, &ap->seen);
	else
		rc = portwatch_scan(&fa->pw, ap->proto, true, &ap->seen);
	if (rc) {
		debug("%s auto: listing the %s's sockets: %m", ap->name,
		      ap->in_ns ? "pod" : "namespace");
		return;
	}
	while ((port = portwatch_next_change(&ap->cur, &ap->seen, &ap->skip,
					     from, &bind)) >= 0) {
		if (!bind) {
			fwd_auto_release(c, ap, (uint16_t)port);
			portset_del(&ap->cur, (uint16_t)port);
		} else if (fwd_auto_bind(c, ap, (uint16_t)port)) {
			portset_add(&ap->cur, (uint16_t)port);
		}
		from = (unsigned int)port + 1;
	}
}

/**
 * fwd_auto_timer() - once a second: make the pod's ports follow
 * @c:		execution context
 */
void fwd_auto_timer(struct ctx *c)
{
	struct fwd_auto *fa = c->fwd_auto;

	if (!fa)
		return;
	fwd_auto_follow(c, fa, &fa->tcp);
	fwd_auto_follow(c, fa, &fa->udp);
	fwd_auto_follow(c, fa, &fa->tcp_ns);
	fwd_auto_follow(c, fa, &fa->udp_ns);
}

/**
 * fwd_auto_listener() - the listener of an epoll reference
 * @ap:		the protocol's state
 * @idx:	slot times two, plus one for IPv6
 *
 * Return: the listener, NULL if it is gone
 */
static const struct fwd_listener *
fwd_auto_listener(const struct fwd_auto_proto *ap, uint32_t idx)
{
	if (idx / 2 >= FWD_AUTO_MAX || ap->p[idx / 2].l[idx % 2].fd < 0)
		return NULL;
	return &ap->p[idx / 2].l[idx % 2];
}

/**
 * fwd_auto_ready() - a connection or datagrams to a followed port
 * @c:		execution context
 * @udp:	a UDP listener, else TCP
 * @idx:	slot times two, plus one for IPv6
 */
void fwd_auto_ready(struct ctx *c, bool udp, uint32_t idx)
{
	const struct fwd_listener *l;

	if (!c->fwd_auto)
		return;
	l = fwd_auto_listener(udp ? &c->fwd_auto->udp : &c->fwd_auto->tcp,
			      idx);
	if (!l)
		return;
	if (udp)
		udp_listener_input(c, l);
	else
		tcp_accept_fwd(c, l);
}

/**
 * fwd_auto_ns_ready() - a connection or datagrams to a port -T or -U auto
 *			 follows, on the namespace's loopback
 * @c:		execution context
 * @udp:	a UDP socket, else a TCP listener
 * @idx:	slot times two, plus one for IPv6
 */
void fwd_auto_ns_ready(struct ctx *c, bool udp, uint32_t idx)
{
	const struct fwd_listener *l;

	if (!c->fwd_auto)
		return;
	l = fwd_auto_listener(udp ? &c->fwd_auto->udp_ns :
				    &c->fwd_auto->tcp_ns, idx);
	if (!l)
		return;
	if (udp)
		fwd_ns_udp_input(c, l);
	else
		fwd_ns_accept(c, l);
}

/* An upgrade in place (daemon/upgrade.c): the ports followed now, their
 * sockets passed along, so that the new netshim serves them from the
 * first moment instead of finding them taken, by the old one, at its
 * first scan.  For each of -t, -u, -T and -U auto: the number of ports
 * (4), then each port (2), which families have a socket (1: bit 0 IPv4,
 * bit 1 IPv6) and those sockets.
 */

/**
 * fwd_auto_protos() - the four protocols' states, in the stream's order
 * @fa:		watch state
 * @ap:		filled
 */
static void fwd_auto_protos(struct fwd_auto *fa, struct fwd_auto_proto **ap)
{
	ap[0] = &fa->tcp;
	ap[1] = &fa->udp;
	ap[2] = &fa->tcp_ns;
	ap[3] = &fa->udp_ns;
}

/**
 * fwd_auto_upgrade_save() - write the ports followed, their sockets along
 * @c:		execution context
 * @io:		the stream, over the new netshim's UNIX socket
 *
 * Return: 0 on success, -1 with @io->err set
 */
int fwd_auto_upgrade_save(struct ctx *c, struct migio *io)
{
	struct fwd_auto_proto *aps[4];
	int k, i, v6;

	for (k = 0; k < 4; k++) {
		uint32_t n = 0;

		if (c->fwd_auto) {
			fwd_auto_protos(c->fwd_auto, aps);
			for (i = 0; i < FWD_AUTO_MAX; i++)
				n += aps[k]->p[i].port != 0;
		}
		if (migio_put_u32(io, n))
			return -1;
		for (i = 0; n && i < FWD_AUTO_MAX; i++) {
			const struct fwd_auto_port *p = &aps[k]->p[i];
			uint8_t fam = (p->l[0].fd >= 0) | (p->l[1].fd >= 0) << 1;

			if (!p->port)
				continue;
			if (migio_put_u16(io, p->port) ||
			    migio_put(io, &fam, 1))
				return -1;
			for (v6 = 0; v6 <= 1; v6++)
				if (p->l[v6].fd >= 0 &&
				    migio_put_fd(io, p->l[v6].fd))
					return -1;
		}
	}
	return 0;
}

/**
 * fwd_auto_upgrade_port() - follow a port handed over, with its sockets
 * @c:		execution context
 * @ap:		the protocol's state, or NULL if this command line does not
 *		follow it: the sockets are closed
 * @port:	the port
 * @fds:	its IPv4 and IPv6 sockets, -1 for none
 */
static void fwd_auto_upgrade_port(struct ctx *c, struct fwd_auto_proto *ap,
				  uint16_t port, const int *fds)
{
	struct fwd_auto_port *p = NULL;
	int i, v6;

	for (i = 0; ap && ap->on && i < FWD_AUTO_MAX && !p; i++)
		if (!ap->p[i].port)
			p = &ap->p[i];
	if (p && portset_has(&ap->cur, port))
		p = NULL;
	for (v6 = 0; v6 <= 1; v6++) {
		struct epoll_event ev = { .events = EPOLLIN };
		uint32_t idx = (uint32_t)(p ? p - ap->p : 0) * 2 + v6;

		if (fds[v6] < 0)
			continue;
		ev.data.u64 = epref(p ? ap->ref : 0, idx);
		if (!p || epoll_ctl(c->epfd, EPOLL_CTL_ADD, fds[v6], &ev)) {
			close(fds[v6]);
			continue;
		}
		p->l[v6].fd = fds[v6];
		p->l[v6].v6 = v6;
		p->l[v6].guest_port = port;
		if (!ap->in_ns)
			podwatch_own(c, fds[v6], ap->proto == IPPROTO_TCP ?
				     SOCK_STREAM : SOCK_DGRAM);
		p->port = port;
	}
	if (p && p->port)
		portset_add(&ap->cur, port);
}

/**
 * fwd_auto_upgrade_load() - follow the ports the old netshim followed
 * @c:		execution context
 * @io:		the stream, at the section's body
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL if malformed)
 */
int fwd_auto_upgrade_load(struct ctx *c, struct migio *io)
{
	struct fwd_auto_proto *aps[4] = { NULL };
	uint32_t n, j;
	int k, v6;

	if (c->fwd_auto)
		fwd_auto_protos(c->fwd_auto, aps);
	for (k = 0; k < 4; k++) {
		if (migio_get_u32(io, &n))
			return -1;
		if (n > FWD_AUTO_MAX) {
			io->err = EINVAL;
			return -1;
		}
		for (j = 0; j < n; j++) {
			int fds[2] = { -1, -1 };
			uint16_t port;
			uint8_t fam;

			if (migio_get_u16(io, &port) || migio_get(io, &fam, 1))
				return -1;
			for (v6 = 0; v6 <= 1; v6++) {
				if ((fam & (1 << v6)) &&
				    migio_get_fd(io, &fds[v6])) {
					if (fds[0] >= 0)
						close(fds[0]);
					return -1;
				}
			}
			if (!port || (fam & ~3) || !fam) {
				for (v6 = 0; v6 <= 1; v6++)
					if (fds[v6] >= 0)
						close(fds[v6]);
				io->err = EINVAL;
				return -1;
			}
			fwd_auto_upgrade_port(c, aps[k], port, fds);
		}
	}
	return 0;
}

/**
 * fwd_auto_udp_by_cookie() - the -u auto or -U auto socket of a cookie
 * @c:		execution context
 * @cookie:	its socket cookie (flow_sock_cookie())
 *
 * Return: the socket, -1 if none has it
 */
int fwd_auto_udp_by_cookie(struct ctx *c, uint64_t cookie)
{
	int i, v6, ns;

	for (ns = 0; ns <= 1; ns++) {
		const struct fwd_auto_proto *ap;

		if (!c->fwd_auto || !cookie)
			return -1;
		ap = ns ? &c->fwd_auto->udp_ns : &c->fwd_auto->udp;
		for (i = 0; i < FWD_AUTO_MAX; i++) {
			for (v6 = 0; v6 <= 1; v6++) {
				int fd = ap->p[i].l[v6].fd;

				if (fd >= 0 && flow_sock_cookie(fd) == cookie)
					return fd;
			}
		}
	}
	return -1;
}
