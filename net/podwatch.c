// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the pod's own listeners, listed once a tick for every user
 *
 * Two features follow the listening sockets of the pod's processes: the
 * sk_lookup program (bpf/sk_lookup.c) leaves their ports to them, and
 * -T auto / -U auto (fwd_auto.c) mirror their ports into the namespace's
 * loopback.  Both want the same list, the pod's listeners less netshim's
 * own, so one sock_diag socket serves them and a scan made for one is
 * reused by the other within the same second.
 *
 * netshim's own sockets are told apart by their socket cookie, not by
 * their port: a forward bound to one address (-t 203.0.113.2/8080) and a
 * sidecar on 127.0.0.1:8080 share a port, and -t all through sk_lookup
 * "forwards" every port while binding none of them.  Every pod listener
 * of netshim (fwd_open_one()) of a protocol whose sockets are scanned is
 * registered here when opened and taken out when closed: the set is a
 * hash table, where the thousands of -u all would touch every page.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "podwatch.h"
#include "bpf/bpf.h"
#include "netshim/conf.h"
#include "netshim/fwdspec.h"
#include "netshim/log.h"

/**
 * struct podwatch - the pod's sock_diag socket and the last scans
 * @pw:		sock_diag socket in the pod, leaving @own out
 * @own:	netshim's listening and bound sockets in the pod
 * @scanned:	TCP and UDP sockets of the pod are scanned: only those of
 *		ours need noting
 * @full_logged: @own filled up, reported once
 * @when:	second of the last TCP and UDP scan, -1 for none
 * @err:	errno of that scan, 0 if it succeeded
 * @last:	its result
 */
struct podwatch {
	struct portwatch pw;
	struct sockset own;
	bool scanned[2];
	bool full_logged;
	time_t when[2];
	int err[2];
	struct portset last[2];
};

/**
 * podwatch_ports() - how many forwarded ports a spec names
 * @spec:	-t or -u spec
 *
 * Return: the count, 65535 for "all"
 */
static uint32_t podwatch_ports(const struct fwd_spec *spec)
{
	uint32_t port, n = 0;

	if (spec->all)
		return 65535;
	for (port = 1; spec->n && port <= 65535; port++)
		if (fwdspec_lookup(spec, (uint16_t)port, NULL))
			n++;
	return n;
}

/**
 * podwatch_init() - open the pod's watch if anything will follow listeners
 * @c:		execution context, in the pod's namespace, before any
 *		forwarded port is bound
 *
 * Needed for -T auto and -U auto, and for a -t spec the sk_lookup program
 * may take; with the control socket (-c), for what rules given at run time
 * may want.  The set of our sockets is sized for every socket forwarding
 * may open: the ports the specs name, both families, and what -t auto and
 * -u auto may follow; with -c, every port of both families and
 * protocols.
 *
 * Return: 0 on success or when not needed, -1 on failure (reported)
 */
int podwatch_init(struct ctx *c)
{
	const struct conf *cf = &c->conf;
	bool tcp = cf->tcp_ns_fwd.follow ||
		   (bpf_wanted(cf) && (cf->tcp_fwd.all || cf->tcp_fwd.follow ||
				       cf->tcp_fwd.n));
	bool udp = cf->udp_ns_fwd.follow;
	bool ctl = *cf->ctl_path;
	struct podwatch *p;
	uint32_t max = 2 * 2 * FWD_AUTO_MAX + 2;

	tcp |= ctl && (bpf_wanted(cf) || conf_ns_mode(cf));
	udp |= ctl && conf_ns_mode(cf);

	if (!tcp && !udp)
		return 0;
	/* -T and -U sockets are opened the same way, in the namespace:
	 * noted too, though a scan of the pod never meets them
	 */
	if (tcp)
		max += 2 * (podwatch_ports(&cf->tcp_fwd) +
			    podwatch_ports(&cf->tcp_ns_fwd));
	if (udp)
		max += 2 * (podwatch_ports(&cf->udp_fwd) +
			    podwatch_ports(&cf->udp_ns_fwd));
	if (ctl && tcp)
		max += 2 * 65535;
	if (ctl && udp)
		max += 2 * 65535;
	p = calloc(1, sizeof(*p));
	if (!p || sockset_init(&p->own, max)) {
		err("out of memory for the list of the pod's listeners");
		free(p);
		return -1;
	}
	if (portwatch_open(&p->pw)) {
		err("cannot open a sock_diag socket in the pod: %m");
		free(p->own.slot);
		free(p);
		return -1;
	}
	p->pw.own = &p->own;
	p->scanned[0] = tcp;
	p->scanned[1] = udp;
	p->when[0] = p->when[1] = -1;
	c->podwatch = p;
	return 0;
}

/**
 * podwatch_own() - a socket of ours in the pod: leave it out of scans
 * @c:		execution context
 * @fd:		the socket
 * @type:	SOCK_STREAM or SOCK_DGRAM
 */
void podwatch_own(struct ctx *c, int fd, int type)
{
	struct podwatch *p = c->podwatch;

	if (!p || !p->scanned[type == SOCK_DGRAM])
		return;
	if (!sockset_add(&p->own, sock_cookie(fd)) || p->full_logged)
		return;
	warn("cannot note a socket of ours (%m): a scan of the pod may take "
	     "it for a pod process's");
	p->full_logged = true;
}

/**
 * podwatch_disown() - a socket of ours is about to be closed
 * @c:		execution context
 * @fd:		the socket, still open
 */
void podwatch_disown(struct ctx *c, int fd)
{
	if (c->podwatch)
		sockset_del(&c->podwatch->own, sock_cookie(fd));
}

/**
 * podwatch_scan() - the ports pod processes listen on, less ours
 * @c:		execution context
 * @proto:	IPPROTO_TCP (listening sockets) or IPPROTO_UDP (bound,
 *		unconnected sockets)
 * @out:	set to the ports, over both families and every address,
 *		loopback included
 *
 * A second scan within the same second returns the first one's result.
 *
 * Return: 0 on success, -1 with errno set (@out is then incomplete)
 */
int podwatch_scan(struct ctx *c, int proto, struct portset *out)
{
	struct podwatch *p = c->podwatch;
	int i = proto == IPPROTO_UDP;

	if (!p) {
		errno = ENOTCONN;
		return -1;
	}
	if (p->when[i] != c->now.tv_sec) {
		p->when[i] = c->now.tv_sec;
		p->err[i] = portwatch_scan(&p->pw, proto, false, &p->last[i]) ?
			    errno : 0;
	}
	*out = p->last[i];
	errno = p->err[i];
	return p->err[i] ? -1 : 0;
}
