// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - sockmap fast path for local flows: loader and map access
 *
 * Loads bpf/sockmap.bpf.c (embedded as a skeleton), sizes its maps to the
 * pair table, attaches the verdict program to the map of sources, all
 * before the sandbox drops privileges.  From then on the loop only updates,
 * deletes and looks up map elements through the descriptors kept here
 * (the seccomp filter allows bpf() for those commands only).
 *
 * Nothing here allocates once loaded: the per-CPU counters are read into
 * a buffer sized at load time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <bpf/libbpf.h>

#include "bpf.h"
#include "netshim/log.h"
#include "sockmap.h"
#include "sockmap.bpf.h"
#include "sockmap.skel.h"

/* libbpf's <bpf/bpf.h> is shadowed by netshim's own bpf/bpf.h (-I.): its
 * one low-level call used here is declared as libbpf 1.x exports it
 */
int bpf_prog_attach(int prog_fd, int attachable_fd,
		    enum bpf_attach_type type, unsigned int flags);

#ifndef SO_COOKIE
#define SO_COOKIE		57
#endif

/**
 * struct sockmap_state - the loaded program and what the loop needs of it
 * @skel:	the skeleton (program, maps), kept for the life of the process
 * @ncpu:	possible CPUs, for the per-CPU map
 * @percpu:	buffer for one lookup of it
 * @cookie:	cookie of the socket in each slot, 0 if none
 */
struct sockmap_state {
	struct sockmap *skel;
	int ncpu;
	struct sockmap_stats *percpu;
	uint64_t cookie[];
};

/**
 * sockmap_load() - load and attach the program, or say why not
 * @conf:	configuration (--bpf)
 * @pairs:	local flows at once: the maps get two slots per pair
 * @sm:		set to the loaded state, NULL if not loaded
 *
 * Return: 0 (loaded, or not loaded and --bpf auto goes on without it),
 *	   -1 if --bpf require and the program could not be loaded
 */
int sockmap_load(const struct conf *conf, unsigned int pairs,
		 struct sockmap_state **sm)
{
	struct sockmap_state *s;
	struct sockmap *skel;
	unsigned int slots = pairs * 2;
	int err, ncpu;

	*sm = NULL;
	if (!bpf_wanted(conf))
		return 0;

	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return bpf_fallback(conf, "sockmap fast path",
				    "splicing local flows",
				    ncpu ? ncpu : -EINVAL);
	s = calloc(1, sizeof(*s) + slots * sizeof(s->cookie[0]));
	if (s)
		s->percpu = calloc((size_t)ncpu, sizeof(*s->percpu));
	if (!s || !s->percpu) {
		free(s);
		return bpf_fallback(conf, "sockmap fast path",
				    "splicing local flows", -ENOMEM);
	}
	s->ncpu = ncpu;

	skel = sockmap__open();
	if (!skel) {
		err = -errno;
		goto fail;
	}
	if ((err = bpf_map__set_max_entries(skel->maps.slots, slots)) ||
	    (err = bpf_map__set_max_entries(skel->maps.targets, slots)) ||
	    (err = bpf_map__set_max_entries(skel->maps.sources, slots)) ||
	    (err = bpf_map__set_max_entries(skel->maps.moved, slots)) ||
	    (err = bpf_program__set_expected_attach_type(
				skel->progs.sockmap_verdict,
				BPF_SK_SKB_VERDICT)))
		goto fail_skel;
	err = sockmap__load(skel);
	if (err)
		goto fail_skel;
	s->skel = skel;
	err = bpf_prog_attach(bpf_program__fd(skel->progs.sockmap_verdict),
			      bpf_map__fd(skel->maps.sources),
			      BPF_SK_SKB_VERDICT, 0);
	if (err) {
		err = -errno;
		goto fail_skel;
	}
	info("eBPF sockmap fast path loaded: local flows that last move "
	     "from splice to the kernel");
	*sm = s;
	return 0;

fail_skel:
	sockmap__destroy(skel);
fail:
	free(s->percpu);
	free(s);
	return bpf_fallback(conf, "sockmap fast path", "splicing local flows",
			    err);
}

/**
 * sockmap_add() - put both sockets of a pair in the maps
 * @sm:		loaded state
 * @pair:	the pair's index: its slots are pair * 2 and pair * 2 + 1
 * @fd:		the two sockets, connected, with nothing left unread or
 *		unwritten by splice
 * @moved_base:	filled in: bytes the slots had counted before, per side
 *
 * Order matters: slots, then targets, then sources, so that the program,
 * once it runs for either socket, finds its slot and its peer.
 *
 * Return: 0 on success, negative error (nothing left in the maps)
 */
int sockmap_add(struct sockmap_state *sm, unsigned int pair, const int fd[2],
		uint64_t moved_base[2])
{
	uint32_t slot[2] = { pair * 2, pair * 2 + 1 };
	socklen_t sl = sizeof(uint64_t);
	uint64_t fdv;
	int s, err;

	for (s = 0; s < 2; s++) {
		if (getsockopt(fd[s], SOL_SOCKET, SO_COOKIE,
			       &sm->cookie[slot[s]], &sl)) {
			err = -errno;
			goto undo;
		}
		moved_base[s] = sockmap_moved(sm, slot[s]);
		err = bpf_map__update_elem(sm->skel->maps.slots,
					   &sm->cookie[slot[s]],
					   sizeof(uint64_t), &slot[s],
					   sizeof(uint32_t), BPF_ANY);
		if (err)
			goto undo;
	}
	for (s = 0; s < 2; s++) {
		fdv = (uint64_t)fd[s];
		err = bpf_map__update_elem(sm->skel->maps.targets, &slot[s],
					   sizeof(uint32_t), &fdv,
					   sizeof(fdv), BPF_ANY);
		if (err)
			goto undo;
	}
	for (s = 0; s < 2; s++) {
		fdv = (uint64_t)fd[s];
		err = bpf_map__update_elem(sm->skel->maps.sources, &slot[s],
					   sizeof(uint32_t), &fdv,
					   sizeof(fdv), BPF_ANY);
		if (err)
			goto undo;
	}
	return 0;
undo:
	sockmap_forget(sm, pair);
	return err;
}

/**
 * sockmap_forget() - take both sockets of a pair out of the maps
 * @sm:		loaded state
 * @pair:	the pair's index
 *
 * Closing a socket takes it out of the socket maps by itself; the cookie
 * map is ours to clean.  Called only once what was redirected has left,
 * or when the pair is reset anyway.
 */
void sockmap_forget(struct sockmap_state *sm, unsigned int pair)
{
	uint32_t slot;
	int s;

	for (s = 0; s < 2; s++) {
		slot = pair * 2 + (uint32_t)s;
		bpf_map__delete_elem(sm->skel->maps.sources, &slot,
				     sizeof(slot), 0);
		bpf_map__delete_elem(sm->skel->maps.targets, &slot,
				     sizeof(slot), 0);
		if (sm->cookie[slot])
			bpf_map__delete_elem(sm->skel->maps.slots,
					     &sm->cookie[slot],
					     sizeof(uint64_t), 0);
		sm->cookie[slot] = 0;
	}
}

/**
 * sockmap_moved() - bytes the program redirected from a slot's sockets
 * @sm:		loaded state
 * @slot:	pair * 2 + side
 *
 * Return: the count since the program was loaded (all flows of the slot)
 */
uint64_t sockmap_moved(const struct sockmap_state *sm, unsigned int slot)
{
	uint64_t n = 0;
	uint32_t k = slot;

	bpf_map__lookup_elem(sm->skel->maps.moved, &k, sizeof(k), &n,
			     sizeof(n), 0);
	return n;
}

/**
 * sockmap_totals() - what the program counted, summed over the CPUs
 * @sm:		loaded state
 * @t:		filled in
 *
 * Return: 0 on success, -1 if the map could not be read
 */
int sockmap_totals(const struct sockmap_state *sm, struct sockmap_totals *t)
{
	uint32_t zero = 0;
	int i;

	memset(t, 0, sizeof(*t));
	if (bpf_map__lookup_elem(sm->skel->maps.stats, &zero, sizeof(zero),
				 sm->percpu, (size_t)sm->ncpu *
				 sizeof(*sm->percpu), 0))
		return -1;
	for (i = 0; i < sm->ncpu; i++) {
		t->bytes += sm->percpu[i].bytes;
		t->skbs += sm->percpu[i].skbs;
		t->misses += sm->percpu[i].misses;
	}
	return 0;
}

/**
 * sockmap_written() - bytes ever put in a TCP socket's send queue
 * @fd:		the socket
 * @n:		filled in: bytes acknowledged by the peer, plus queued
 *
 * With the kernel's worker writing redirected buffers into the socket,
 * this is how netshim sees them arrive: compared with what the program
 * redirected, it tells whether the worker still holds some.
 *
 * Return: 0 on success, -1 on failure
 */
int sockmap_written(int fd, uint64_t *n)
{
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);
	int outq;

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &sl) ||
	    sl < offsetof(struct tcp_info, tcpi_bytes_acked) +
		 sizeof(ti.tcpi_bytes_acked) ||
	    ioctl(fd, SIOCOUTQ, &outq))
		return -1;
	*n = ti.tcpi_bytes_acked + (uint64_t)outq;
	return 0;
}

/**
 * sockmap_closing() - tell if a TCP socket has left the established state
 * @fd:		the socket
 *
 * The kernel takes only established sockets into a sockmap: one whose
 * peer has just sent a FIN or a reset is refused, which is the flow
 * ending, not the sockmap failing.
 *
 * Return: true if it has (or cannot be asked)
 */
bool sockmap_closing(int fd)
{
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &sl) || !sl)
		return true;
	return ti.tcpi_state != BPF_TCP_ESTABLISHED;
}

/**
 * sockmap_unread() - bytes in a socket's receive queue not yet consumed
 * @fd:		the socket
 *
 * Return: the count (0 once the program has taken everything), -1 on
 *	   failure
 */
int sockmap_unread(int fd)
{
	int n;

	if (ioctl(fd, SIOCINQ, &n))
		return -1;
	return n;
}
