// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - sockmap fast path: the kernel joins two sockets of a local flow
 *
 * A local flow (tcp/splice.c) that lasts is moved from splice() to the
 * kernel: both sockets go into the maps here, and every buffer that
 * arrives on one is handed by this program to the other one's send side
 * (bpf_sk_redirect_map() with flags 0: egress), so netshim's loop is not
 * woken at all until the flow ends.
 *
 * The program is attached as BPF_SK_SKB_VERDICT to @sources, without a
 * stream parser: the kernel then reads whole buffers off the receive
 * queue (tcp_read_skb()) with no strparser in between, which is both the
 * cheaper path and the one where a buffer is never split or held back
 * waiting for a message boundary; a byte stream has none.
 *
 * Three maps hold the sockets, so that a socket never redirects to a peer
 * that is not there yet:
 * - @slots: socket cookie -> slot, filled first;
 * - @targets: slot -> socket, no program: what bpf_sk_redirect_map()
 *   looks in; both sockets of a pair are in it before either can run the
 *   program;
 * - @sources: slot -> socket, with the program: a socket starts going
 *   through the program when it is put here, last.
 * @moved counts, per slot, the bytes redirected from that socket: netshim
 * compares it with what reached the peer's send queue before it passes an
 * end of stream on or lets the sockets go (the kernel's worker may still
 * hold redirected buffers).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "sockmap.bpf.h"

/* Sizes are set by the loader (bpf_map__set_max_entries()) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2);
	__type(key, __u64);
	__type(value, __u32);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} sources SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} moved SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sockmap_stats);
} stats SEC(".maps");

/**
 * sockmap_verdict() - send what arrived on a socket to its peer's send side
 * @skb:	the buffer, taken whole off the socket's receive queue
 *
 * Return: SK_PASS with a redirection to the peer, SK_DROP for the empty
 *	   buffer of an end of stream, SK_PASS without a redirection if
 *	   the socket has no slot (the data stays with the socket), or what
 *	   bpf_sk_redirect_map() says (SK_DROP if the peer is gone)
 */
/* Plain "sk_skb": libbpf 1.1 (Debian 12) does not know "sk_skb/verdict";
 * the loader sets the attach type
 */
SEC("sk_skb")
int sockmap_verdict(struct __sk_buff *skb)
{
	__u64 cookie = bpf_get_socket_cookie(skb);
	struct sockmap_stats *st;
	__u32 zero = 0, peer;
	__u64 *n;
	__u32 *slot;
	long ret;

	/* The end of stream comes as a buffer without data: redirected, it
	 * would make the kernel's worker fail the peer's send side (EPIPE,
	 * and what it still holds dropped).  netshim passes the end on itself
	 * (shutdown()) once the data before it has left.
	 */
	if (!skb->len)
		return SK_DROP;
	st = bpf_map_lookup_elem(&stats, &zero);
	slot = bpf_map_lookup_elem(&slots, &cookie);
	if (!slot) {
		if (st)
			st->misses++;
		return SK_PASS;
	}
	peer = *slot ^ 1;
	ret = bpf_sk_redirect_map(skb, &targets, peer, 0);
	if (ret != SK_PASS) {
		if (st)
			st->misses++;
		return ret;
	}
	n = bpf_map_lookup_elem(&moved, slot);
	if (n)
		__sync_fetch_and_add(n, skb->len);
	if (st) {
		st->bytes += skb->len;
		st->skbs++;
	}
	return SK_PASS;
}

char LICENSE[] SEC("license") = "GPL";
