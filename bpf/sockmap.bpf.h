/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - sockmap fast path: what the program and its loader share
 */
#ifndef NETSHIM_SOCKMAP_BPF_H
#define NETSHIM_SOCKMAP_BPF_H

/* Slot of a socket in the maps: pair index * 2 + side, and its peer's is
 * slot ^ 1.  The loader sizes every map to the pair table at load time.
 */

/**
 * struct sockmap_stats - what the verdict program counts, one per CPU
 * @bytes:	bytes redirected to the peer socket
 * @skbs:	buffers redirected
 * @misses:	buffers of a socket without a slot, or whose peer is gone
 *		(passed to the socket's own queue, or dropped by the kernel)
 */
struct sockmap_stats {
	__u64 bytes;
	__u64 skbs;
	__u64 misses;
};

#endif /* NETSHIM_SOCKMAP_BPF_H */
