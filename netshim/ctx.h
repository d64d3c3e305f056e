/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the execution context, passed explicitly everywhere
 */
#ifndef NETSHIM_CTX_H
#define NETSHIM_CTX_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "conf.h"
#include "netns.h"
#include "repair.h"

/* Largest frame on the stream link: a 16-bit length's worth */
#define FRAME_MAX		65535
#define ETH_HLEN_		14
/* Shortest Ethernet frame without its FCS: frames to the guest are padded
 * to it, as on a wire (IEEE 802.3 minimum of 64 bytes with the FCS)
 */
#define ETH_ZLEN_		60

/* What an epoll event belongs to: type in the high 32 bits, index low */
enum epref_type {
	EPREF_LINK_LISTEN = 1,
	EPREF_LINK,
	EPREF_SIGNAL,
	EPREF_TIMER,
	EPREF_FLOW,		/* UDP or ICMP flow socket, index: flow */
	EPREF_UDP_LISTEN,	/* inbound UDP forward, index: listener */
	EPREF_TCP,		/* TCP connection socket, index: connection */
	EPREF_TCP_LISTEN,	/* inbound TCP forward, index: listener */
	EPREF_TCP_AUTO,		/* -t auto listener, index: fwd_auto.c's */
	EPREF_UDP_AUTO,		/* -u auto listener, index: fwd_auto.c's */
	EPREF_SPLICE,		/* local flow socket, index: pair * 2 + side */
	EPREF_TCP_NS,		/* -T listener in the namespace, index: its */
	EPREF_UDP_NS,		/* -U socket in the namespace, index: its */
	EPREF_UDP_SPLICE,	/* UDP local flow socket, index: flow */
	EPREF_TCP_NS_AUTO,	/* -T auto listener, index: fwd_auto.c's */
	EPREF_UDP_NS_AUTO,	/* -U auto socket, index: fwd_auto.c's */
	EPREF_REPAIR_LISTEN,	/* socket the TCP repair helper connects to */
	EPREF_REPAIR,		/* the TCP repair helper */
	EPREF_NETNS,		/* --netns: its file's directory, or process */
	EPREF_CTL_LISTEN,	/* -c: the control socket */
	EPREF_METRICS_LISTEN,	/* --metrics: the counters' socket */
	EPREF_CTL,		/* a client of either, index: its slot */
	EPREF_UPGRADE_LISTEN,	/* socket a new netshim takes over at */
	EPREF_UPGRADE,		/* a new netshim taking over (upgrade.c) */
};

static inline uint64_t epref(enum epref_type t, uint32_t idx)
{
	return (uint64_t)t << 32 | idx;
}

/* Counters, printed on SIGUSR1: X(name, description) */
#define COUNTERS(X)							\
	X(frames_in,		"frames from the guest")		\
	X(frames_out,		"frames to the guest")			\
	X(bytes_in,		"bytes from the guest")			\
	X(bytes_out,		"bytes to the guest")			\
	X(drop_link_len,	"VMM connections reset: bad frame length") \
	X(drop_eth,		"dropped: malformed Ethernet")		\
	X(drop_ethertype,	"dropped: unsupported ethertype")	\
	X(drop_arp,		"dropped: malformed or foreign ARP")	\
	X(drop_ip4,		"dropped: malformed IPv4")		\
	X(drop_ip6,		"dropped: malformed IPv6")		\
	X(drop_frag,		"dropped: IP fragments")		\
	X(drop_proto,		"dropped: unsupported protocol")	\
	X(drop_disabled,	"dropped: protocol disabled (--no-tcp, --no-udp, --no-icmp)") \
	X(drop_src,		"dropped: source not the guest's")	\
	X(drop_dst,		"dropped: loopback or unspecified destination") \
	X(drop_csum,		"dropped: bad checksum")		\
	X(drop_link_only,	"dropped: broadcast, multicast, link-local or from 0.0.0.0: for the guest's link alone") \
	X(drop_udp,		"dropped: malformed UDP")		\
	X(drop_icmp,		"dropped: malformed or unsupported ICMP") \
	X(drop_ping_denied,	"dropped: ping sockets not permitted")	\
	X(drop_tcp,		"dropped: malformed TCP")		\
	X(drop_tx_full,		"dropped: queue to the VMM full")	\
	X(drop_flow_full,	"dropped: flow table full")		\
	X(drop_sock,		"dropped: host socket error")		\
	X(tcp_full,		"TCP SYNs reset: connection table full") \
	X(arp_replies,		"ARP replies")				\
	X(dhcp_replies,		"DHCPv4 replies")			\
	X(dhcp6_replies,	"DHCPv6 replies")			\
	X(ndp_replies,		"NDP replies and advertisements")	\
	X(icmp6_link,		"ICMPv6 from the guest for its link alone, not forwarded: MLD, advertisements, redirects") \
	X(guest_probes,		"ARP requests and neighbour solicitations for the guest's MAC address") \
	X(icmp_errors,		"ICMP errors from the pod's network relayed to the guest") \
	X(icmp_errors_other,	"socket errors not relayed: local, or not an ICMP error a guest acts on") \
	X(udp_flows,		"UDP flows opened")			\
	X(icmp_flows,		"ICMP echo flows opened")		\
	X(tcp_conns,		"TCP connections opened")		\
	X(tcp_sock_refused,	"TCP bytes from the guest its host socket had no room for (the guest sends them again)") \
	X(tcp_guest_ooo,	"TCP segments from the guest past a gap, answered with duplicate ACKs") \
	X(tcp_ooo_held,		"TCP bytes from the guest held past a gap until it filled") \
	X(tcp_ooo_written,	"TCP bytes held past a gap written once it filled") \
	X(tcp_window_probes,	"TCP probes of a guest's closed window (persist timer)") \
	X(tcp_spliced,		"TCP local flows spliced")		\
	X(tcp_sockmap,		"TCP local flows moved to the eBPF sockmap") \
	X(sockmap_bytes,	"bytes the eBPF sockmap redirected")	\
	X(sockmap_misses,	"buffers the eBPF sockmap found no peer for") \
	X(sockmap_refused,	"local flows left on splice: sockmap update failed") \
	X(udp_spliced,		"UDP local flows opened")		\
	X(vmm_connects,		"VMM connections accepted, or made (--connect)") \
	X(vmm_connect_failed,	"attempts to connect to the VMM that failed (--connect)") \
	X(vu_dropped,		"vhost-user front-ends dropped: protocol or rings broken") \
	X(vu_mem_added,		"vhost-user memory regions added one by one (ADD_MEM_REG)") \
	X(vu_resumed,		"vhost-user queues started from their used ring, not the front-end's base") \
	X(vu_mem_removed,	"vhost-user memory regions removed one by one (REM_MEM_REG)") \
	X(drop_vu_len,		"dropped: guest frame too short or too long") \
	X(drop_vu_rxbuf,	"dropped: frame larger than the guest's receive buffers") \
	X(drop_vnet_hdr,	"dropped: virtio-net header malformed or not negotiated") \
	X(tso_out,		"TCP segments to the guest larger than its MTU (TSO)") \
	X(tso_in,		"TCP segments from the guest larger than its MTU (TSO)") \
	X(frames_in_place,	"frames to the guest built in its own buffers") \
	X(payload_in_place,	"guest TCP frames written to the socket from guest memory") \
	X(udp_in_place,		"UDP datagrams received straight into the guest's buffers") \
	X(migrations_out,	"device states handed to a migration's destination") \
	X(migrations_in,	"device states taken from a migration's source") \
	X(migrations_refused,	"device states refused or not handed over") \
	X(tcp_migrated_reset,	"TCP connections of a migrated guest reset towards it") \
	X(tcp_migrated,		"TCP connections of a migrated guest kept, socket and all") \
	X(tcp_rcvq_reread,	"receive queues handed over read again: segments came during the read") \
	X(udp_migrated,		"UDP flows of a migrated guest opened again on their ports") \
	X(icmp_migrated,	"ICMP echo flows of a migrated guest opened again") \
	X(link_buf_reached,	"bytes of the link buffers reached so far (resident from then on)") \
	X(ctl_requests,		"control socket requests served")	\
	X(ctl_refused,		"control socket clients and requests refused") \
	X(capture_dropped,	"frames left out of a capture to a control client: it read too slowly") \
	X(upgrades_refused,	"upgrades in place that did not happen: refused by the new netshim, or broken off")

#define COUNTER_FIELD(name, desc) uint64_t name;
struct counters {
	COUNTERS(COUNTER_FIELD)
};
#undef COUNTER_FIELD

/**
 * struct tx - frames queued for the VMM, length-prefixed, in one buffer
 * @buf:	buffer, sized at start-up
 * @size:	its size
 * @head:	first byte not yet written to the VMM
 * @tail:	end of the queued bytes
 * @meta:	bytes between each frame's length and the frame, where a
 *		back-end that offloads keeps its virtio-net header; 0 for
 *		the stream, whose queue goes to QEMU as it is
 */
struct tx {
	uint8_t *buf;
	size_t size;
	size_t head, tail;
	size_t meta;
};

/**
 * struct rx - bytes read from the VMM, parsed into frames in place
 * @buf:	buffer, sized at start-up
 * @size:	its size
 * @len:	valid bytes (a partial frame at the end waits for more)
 * @off:	bytes of it already cut into frames (stream)
 */
struct rx {
	uint8_t *buf;
	size_t size;
	size_t len;
	size_t off;
};

struct flow_table;
struct tcp_table;
struct fwd_auto;
struct sk_lookup_fwd;
struct podwatch;
struct ctl;
struct ctl_fwd;
struct splice_table;
struct udp_splice_table;
struct link_ops;
struct link_in_frame;
struct vu_link;

/**
 * struct link_caps - offloads the guest took, as its back-end negotiated
 * @csum:	frames may carry a partial TCP or UDP checksum for the guest
 *		to finish (or trust): no need to sum the payload here
 * @tso4:	TCP over IPv4 may go in segments larger than the MTU, cut at
 *		the guest's MSS if the guest ever sends them on
 * @tso6:	the same for IPv6
 *
 * All false until the back-end says otherwise, and again when its
 * front-end goes: a new one negotiates anew.
 */
struct link_caps {
	bool csum;
	bool tso4, tso6;
};

/**
 * struct link_client - client mode (--connect): reaching the socket the VMM
 *			listens on (link/client.c)
 * @dir_fd:	the socket's directory, opened at start: once isolated,
 *		netshim has no filesystem to find it by its path
 * @name:	the socket's name in @dir_fd
 * @waiting:	no VMM is connected, and attempts go on
 * @ever:	a VMM was connected once
 * @gave_up:	none listened within --connect-timeout: netshim exits
 * @since_ms:	when the wait began, milliseconds of the loop's clock
 * @next_ms:	when the next attempt is due
 * @delay_ms:	how long to wait after the next failed attempt
 * @last_errno:	what the last failed attempt met, logged once until it
 *		changes
 */
struct link_client {
	int dir_fd;
	char name[108];
	bool waiting;
	bool ever;
	bool gave_up;
	long long since_ms;
	long long next_ms;
	unsigned int delay_ms;
	int last_errno;
};

/**
 * struct link - the link to the guest, whichever back-end carries it
 * @ops:	the back-end, chosen at start (link/link.h)
 * @up:		a VMM or front-end is connected and frames can flow
 * @blocked:	the back-end cannot take frames now and will say when it can
 * @listen_fd:	UNIX socket the VMM or front-end connects to, or -1
 * @fd:		connection to the VMM or front-end, or -1
 * @rx:		bytes read from the VMM (stream), frames copied from the
 *		guest (vhost-user)
 * @tx:		frames queued for the guest (link/queue.c)
 * @vu:		vhost-user back-end state, NULL for the others
 * @caps:	offloads the guest negotiated
 * @in:		frames from the guest waiting to be handed up, LINK_IN_MAX
 * @in_n:	how many
 * @gone:	the guest went away and the layers above were not told yet
 * @fresh:	a VMM connected and the layers above were not told yet
 * @notify_due:	frames were handed over in place and the guest is not told
 *		yet: link_flush() does, once per loop iteration
 * @tx_reached:	bytes of @tx's buffer frames ever reached: resident since
 * @rx_reached:	the same for @rx's
 * @state_fd:	pipe of a device state transfer the front-end asked for, not
 *		taken yet (link_take_state()), or -1
 * @state_load:	@state_fd brings a migrated guest's state in
 * @state_ok:	the last transfer succeeded, as the front-end may check
 * @state_out:	the front-end checked that a saved state reached the
 *		migration's destination, and the layers above were not
 *		told yet
 * @state_saved: our state was saved since the guest last ran here
 * @state_back:	the guest runs here again after its state was saved (the
 *		migration failed or was cancelled), and the layers above
 *		were not told yet
 * @client:	client mode's state (--connect)
 */
struct link {
	const struct link_ops *ops;
	bool up;
	bool blocked;
	int listen_fd;
	int fd;
	struct rx rx;
	struct tx tx;
	struct vu_link *vu;
	struct link_caps caps;
	struct link_in_frame *in;
	unsigned int in_n;
	bool gone;
	bool fresh;
	bool notify_due;
	size_t tx_reached, rx_reached;
	int state_fd;
	bool state_load;
	bool state_ok;
	bool state_out;
	bool state_saved;
	bool state_back;
	struct link_client client;
};

/**
 * struct upgrade - an upgrade in place (upgrade.c)
 * @listen_fd:	--upgrade-path, where a new netshim connects, or -1
 * @fd:		the new netshim taking over from us, or the old one we take
 *		over from, or -1
 * @peer:	its process ID
 * @uid:	the user we were started as, who may take over besides root
 * @done:	we handed everything over: the loop ends, and nothing
 *		shared (sockets, the socket and PID files) is touched
 */
struct upgrade {
	int listen_fd;
	int fd;
	int peer;
	uid_t uid;
	bool done;
};

/**
 * struct ctx - everything the daemon knows, passed as first argument
 */
struct ctx {
	struct conf conf;
	struct counters cnt;

	int epfd;
	int signal_fd;
	int timer_fd;
	int pcap_fd;

	struct repair repair;	/* the TCP repair helper (repair.c) */
	struct upgrade up;	/* an upgrade in place (upgrade.c) */

	struct link link;

	uint8_t guest_mac[6];
	bool guest_mac_known;

	/* the global IPv6 address the guest last used or claimed (gaddr.c) */
	struct in6_addr gaddr6_seen;
	bool gaddr6_known;
	/* its link-local address: local mode's inbound flows go there, and
	 * those from netshim's own link-local address (gaddr_inbound_ll())
	 */
	struct in6_addr gaddr6_ll;
	bool gaddr6_ll_known;

	struct timespec now;	/* updated once per loop iteration */

	bool ping4_denied, ping6_denied;
	time_t last_ra;

	struct netns ns;	/* namespace mode: the namespace served */

	struct fwd_auto *fwd_auto;	/* -t auto, NULL without */
	struct sk_lookup_fwd *sk_lookup; /* bpf/sk_lookup.c, NULL without */
	struct podwatch *podwatch;	/* podwatch.c, NULL without */
	struct ctl *ctl;		/* ctl.c: -c and --metrics, or NULL */
	struct ctl_fwd *ctl_fwd;	/* ctl_fwd.c: with -c, or NULL */
	struct splice_table *splice;	/* local flows, NULL without */
	struct udp_splice_table *udp_splice;	/* UDP ones, NULL without */
	struct flow_table *flows;
	struct tcp_table *tcp;
	/* Forwarding sockets besides TCP's (which its table holds) */
	struct fwd_listener *udp_lst;	/* -u (udp/udp.c) */
	uint32_t udp_n;
	struct fwd_listener *ns_lst;	/* -T, in the namespace (fwd_ns.c) */
	uint32_t ns_n;
	struct fwd_listener *ns_ulst;	/* -U */
	uint32_t ns_un;
	bool quit;
};

#endif /* NETSHIM_CTX_H */
