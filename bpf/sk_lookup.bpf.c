// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - every forwarded TCP port of the pod through one socket
 *
 * An sk_lookup program attached to the pod's network namespace: the
 * kernel runs it when a TCP SYN finds no established socket, before it
 * looks for a listener.  For a destination port that -t forwards and on
 * which no pod process listens, it hands the connection to netshim's one
 * listening socket of the packet's family; anything else goes on to the
 * kernel's own lookup, untouched.  The accepted socket keeps the original
 * destination as its local address, so netshim still knows the port.
 *
 * Which ports are forwarded, and which ones pod processes listen on, are
 * sets netshim writes straight into the program's memory-mapped data:
 * the first when the control socket changes the rules (daemon/ctl_fwd.c),
 * the second once a second.  The loop makes no bpf() call at all.
 */
#include <linux/bpf.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>

#include "sk_lookup.bpf.h"

/* netshim's listening sockets: SK_LOOKUP_V4, SK_LOOKUP_V6 */
struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} sk_lookup_socks SEC(".maps");

/* Ports -t forwards, one bit each, set by netshim before attaching and
 * when its rules change at run time
 */
__u64 fwd_ports[SK_LOOKUP_WORDS];

/* Ports pod processes listen on, one bit each, kept up to date by netshim
 * from sock_diag: those connections are the processes', not the guest's
 */
__u64 pod_ports[SK_LOOKUP_WORDS];

/* Connections handed to netshim, per family, for its counters */
__u64 assigned[2];

/**
 * netshim_sk_lookup() - steer a connection to a forwarded port to netshim
 * @ctx:	the lookup: family, protocol, addresses and ports
 *
 * Return: SK_PASS always: either with netshim's socket assigned, or on to
 *	   the kernel's own lookup
 */
SEC("sk_lookup")
int netshim_sk_lookup(struct bpf_sk_lookup *ctx)
{
	__u32 port = ctx->local_port, w = (port / 64) & (SK_LOOKUP_WORDS - 1);
	__u64 bit = 1ULL << (port % 64);
	__u32 key, v6;
	struct bpf_sock *sk;
	long err;

	if (ctx->protocol != IPPROTO_TCP || port > 65535)
		return SK_PASS;
	if (!(fwd_ports[w] & bit) || (pod_ports[w] & bit))
		return SK_PASS;

	/* key's copy on the stack is the map's; v6 stays a bounded index */
	v6 = ctx->family == SK_LOOKUP_AF_INET6;
	key = v6 ? SK_LOOKUP_V6 : SK_LOOKUP_V4;
	sk = bpf_map_lookup_elem(&sk_lookup_socks, &key);
	if (!sk)
		return SK_PASS;
	err = bpf_sk_assign(ctx, sk, 0);
	bpf_sk_release(sk);
	if (!err)
		__sync_fetch_and_add(&assigned[v6 & 1], 1);
	return SK_PASS;
}

char LICENSE[] SEC("license") = "GPL";
