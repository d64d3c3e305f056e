// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - every forwarded TCP port through one socket (sk_lookup)
 *
 * With -t all (or ranges, or -t auto for a VM), one socket per port and
 * family would take up to 131070 descriptors and every port of the pod,
 * so a process starting after netshim (a sidecar) could bind none of
 * them.  Instead, bpf/sk_lookup.bpf.c is attached to the pod's network
 * namespace and hands each connection to a forwarded port to one
 * listening socket of netshim per family, unless a pod process listens
 * on that port: the set of those is listed through sock_diag once a
 * second (net/podwatch.c, which leaves netshim's own sockets out) and
 * written into the program's memory-mapped data.
 * After start-up this needs no bpf() call, so the sandbox's seccomp
 * filter does not grow.
 *
 * TCP only: a UDP reply must leave from the port the datagram came to,
 * which takes a socket bound to that port for each flow; such a socket
 * would take the port from a pod process binding it later, the very thing
 * this avoids.  -u all keeps its per-port sockets.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>

#include <bpf/libbpf.h>

#include "sk_lookup.h"
#include "sk_lookup.bpf.h"
#include "sk_lookup.skel.h"
#include "netshim/log.h"
#include "netshim/portset.h"

/**
 * struct sk_lookup_fwd - the loaded program and what keeps it current
 * @skel:	the program, its socket map and its data
 * @link:	its attachment to the pod's network namespace
 * @fwd:	ports forwarded (the program's read-only copy is the one used)
 * @scan_err:	the last scan failed, reported once
 */
struct sk_lookup_fwd {
	struct sk_lookup *skel;
	struct bpf_link *link;
	struct portset fwd;
	bool scan_err;
};

/**
 * sk_lookup_publish() - make the program see a new set of pod listeners
 * @s:		state
 * @set:	the pod's listeners
 * @quiet:	log nothing (the first set, before the program is attached)
 *
 * The data is shared memory the program reads concurrently: each word is
 * stored whole, so a lookup sees either a port's old or its new state.
 */
static void sk_lookup_publish(struct sk_lookup_fwd *s,
			      const struct portset *set, bool quiet)
{
	__u64 *pod = s->skel->bss->pod_ports;
	unsigned int w;

	for (w = 0; w < SK_LOOKUP_WORDS; w++) {
		uint64_t diff = pod[w] ^ set->w[w];

		if (!diff)
			continue;
		__atomic_store_n(&pod[w], set->w[w], __ATOMIC_RELAXED);
		for (diff &= s->fwd.w[w]; diff && !quiet; diff &= diff - 1) {
			unsigned int port = w * 64 + __builtin_ctzll(diff);

			if (set->w[w] & (diff & -diff))
				info("TCP port %u: a pod process listens, its "
				     "connections stay in the pod", port);
			else
				info("TCP port %u: no pod process listens any "
				     "more, forwarded to the guest", port);
		}
	}
}

/**
 * sk_lookup_destroy() - undo a partial sk_lookup_start()
 * @s:		state
 */
static void sk_lookup_destroy(struct sk_lookup_fwd *s)
{
	if (s->link)
		bpf_link__destroy(s->link);
	if (s->skel)
		sk_lookup__destroy(s->skel);
	free(s);
}

/**
 * sk_lookup_start() - load the program, give it our sockets, attach it
 * @c:		execution context; c->sk_lookup is set on success
 * @fwd:	ports to forward
 * @fd4:	the IPv4 listening socket, -1 for none
 * @fd6:	the IPv6 one (IPV6_V6ONLY), -1 for none
 * @pod:	the ports pod processes listen on now, less netshim's own
 *		(net/podwatch.c)
 *
 * Call it in the pod's network namespace, before the sandbox: loading,
 * the socket map and attaching need CAP_BPF and CAP_NET_ADMIN.  The pod's
 * listeners are given to the program before it is attached, so no
 * connection to a port a pod process already listens on is ever taken.
 *
 * Return: 0 on success, a negative error (for bpf_why()) on failure
 */
int sk_lookup_start(struct ctx *c, const struct portset *fwd, int fd4,
		    int fd6, const struct portset *pod)
{
	int fds[2] = { fd4, fd6 }, err = 0, ns;
	struct sk_lookup_fwd *s = calloc(1, sizeof(*s));
	uint32_t key;

	if (!s)
		return -ENOMEM;
	s->fwd = *fwd;
	s->skel = sk_lookup__open();
	if (!s->skel) {
		err = -errno;
		goto fail;
	}
	err = sk_lookup__load(s->skel);
	if (err)
		goto fail;
	memcpy(s->skel->bss->fwd_ports, fwd->w, sizeof(fwd->w));

	for (key = SK_LOOKUP_V4; key <= SK_LOOKUP_V6; key++) {
		uint64_t fd = (uint64_t)fds[key];

		if (fds[key] < 0)
			continue;
		err = bpf_map__update_elem(s->skel->maps.sk_lookup_socks, &key,
					   sizeof(key), &fd, sizeof(fd),
					   BPF_ANY);
		if (err)
			goto fail;
	}

	sk_lookup_publish(s, pod, true);

	ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns < 0) {
		err = -errno;
		goto fail;
	}
	s->link = bpf_program__attach_netns(s->skel->progs.netshim_sk_lookup,
					    ns);
	err = -errno;
	close(ns);
	if (!s->link)
		goto fail;
	c->sk_lookup = s;
	return 0;
fail:
	sk_lookup_destroy(s);
	return err ? err : -EINVAL;
}

/**
 * sk_lookup_pod() - follow the pod's own listeners, as scanned again
 * @c:		execution context
 * @pod:	the ports pod processes listen on now, less netshim's own;
 *		NULL if they could not be listed (errno says why)
 *
 * A port a pod process starts listening on is left to it from now on; a
 * port it stops listening on goes back to the guest.  A failed scan
 * leaves every port as it was, and is reported once.
 */
void sk_lookup_pod(struct ctx *c, const struct portset *pod)
{
	struct sk_lookup_fwd *s = c->sk_lookup;

	if (!s)
		return;
	if (!pod) {
		if (!s->scan_err)
			warn("sk_lookup: cannot list the pod's listening "
			     "sockets (%m): ports keep their last state");
		s->scan_err = true;
		return;
	}
	s->scan_err = false;
	sk_lookup_publish(s, pod, false);
}

/**
 * sk_lookup_ports() - forward another set of ports, from now on
 * @c:		execution context
 * @fwd:	the ports
 *
 * As the pod's listeners, each word is stored whole: a connection coming
 * meanwhile sees a port forwarded either as before or as now.
 */
void sk_lookup_ports(struct ctx *c, const struct portset *fwd)
{
	struct sk_lookup_fwd *s = c->sk_lookup;
	unsigned int w;

	if (!s)
		return;
	for (w = 0; w < SK_LOOKUP_WORDS; w++)
		if (s->skel->bss->fwd_ports[w] != fwd->w[w])
			__atomic_store_n(&s->skel->bss->fwd_ports[w], fwd->w[w],
					 __ATOMIC_RELAXED);
	s->fwd = *fwd;
}

/**
 * sk_lookup_assigned() - connections the program handed to netshim
 * @c:		execution context
 *
 * Return: their number since start, both families
 */
uint64_t sk_lookup_assigned(const struct ctx *c)
{
	const struct sk_lookup_fwd *s = c->sk_lookup;

	if (!s)
		return 0;
	return __atomic_load_n(&s->skel->bss->assigned[0], __ATOMIC_RELAXED) +
	       __atomic_load_n(&s->skel->bss->assigned[1], __ATOMIC_RELAXED);
}
