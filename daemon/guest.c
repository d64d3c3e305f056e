// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the guest's side of the loop: frames and news from the link,
 *	     up to the protocol layers
 *
 * The one place frames from the guest come up through: the link's
 * back-ends put them in a batch (link_frame_in()), and the loop hands the
 * batch here, where Ethernet and IP are checked and each packet goes to
 * ARP, TCP, UDP or ICMP.  Nothing is passed on before it is checked:
 * header and total lengths (ip.c), checksums unless the guest vouched for
 * them, and the source address (only one netshim gave the guest:
 * gaddr.c).  The news that the guest went away comes up the same way.
 * Nothing below includes this file.
 */
#include <string.h>

#include "guest.h"
#include "migrate.h"
#include "icmp/icmp.h"
#include "link/link.h"
#include "net/eth.h"
#include "net/flow.h"
#include "net/gaddr.h"
#include "net/ip.h"
#include "netshim/inany.h"
#include "netshim/log.h"
#include "netshim/repair.h"
#include "tcp/tcp.h"
#include "udp/udp.h"

/**
 * ip_udp_dport() - UDP destination port of a packet, for the source check
 * @m:		addresses and protocol
 * @l4:		layer-4 part
 *
 * Return: the port, or -1 if not UDP or too short to hold one
 */
static int ip_udp_dport(const struct l4_meta *m, const struct pkt *l4)
{
	const uint8_t *p = pkt_get(l4, 2, 2);

	return m->proto == IPPROTO_UDP && p ? rd16(p) : -1;
}

/**
 * ip_dispatch() - hand a validated packet to its layer-4 handler
 * @c:		execution context
 * @m:		addresses and protocol
 * @l4:		layer-4 part
 * @f:		the frame it came in
 */
static void ip_dispatch(struct ctx *c, const struct l4_meta *m,
			const struct pkt *l4, const struct link_in_frame *f)
{
	if (m->proto != IPPROTO_TCP && m->proto != IPPROTO_UDP &&
	    m->proto != IPPROTO_ICMP && m->proto != IPPROTO_ICMPV6_) {
		c->cnt.drop_proto++;
		return;
	}
	if ((m->proto == IPPROTO_ICMP) == m->v6 &&
	    (m->proto == IPPROTO_ICMP || m->proto == IPPROTO_ICMPV6_)) {
		c->cnt.drop_proto++;
		return;
	}
	/* What the back-end left in the guest's memory is a TCP payload
	 * for the socket, behind headers it copied: if the packet says
	 * otherwise, the virtio-net header lied
	 */
	if (f->copied < f->pkt.len &&
	    (m->proto != IPPROTO_TCP ||
	     (size_t)(l4->data - f->pkt.data) != f->l4_off)) {
		c->cnt.drop_vnet_hdr++;
		return;
	}
	if (!f->csum_ok && !ip_l4_csum_ok(m, l4)) {
		c->cnt.drop_csum++;
		return;
	}

	switch (m->proto) {
	case IPPROTO_TCP:
		tcp_input(c, m, l4);
		break;
	case IPPROTO_UDP:
		udp_input(c, m, l4);
		break;
	default:
		icmp_input(c, m, l4);
	}
}

/**
 * ip4_input() - an IPv4 packet from the guest: checked, then dispatched
 * @c:		execution context
 * @p:		the packet (Ethernet payload)
 * @f:		the frame it came in
 */
static void ip4_input(struct ctx *c, const struct pkt *p,
		       const struct link_in_frame *f)
{
	struct l4_meta m;
	struct pkt l4;
	struct in_addr src;
	int rc;

	rc = ip4_parse(p, &m, &l4);
	if (rc) {
		if (rc == -2)
			c->cnt.drop_frag++;
		else if (rc == -3)
			c->cnt.drop_csum++;
		else
			c->cnt.drop_ip4++;
		return;
	}

	src = inany_to4(&m.src);
	if (!gaddr_src4_ok(&c->conf, src, m.proto, ip_udp_dport(&m, &l4))) {
		c->cnt.drop_src++;
		return;
	}
	/* The pod's loopback is the pod's, not the guest's: sidecars keep
	 * their admin ports there.  Only --map-host-loopback reaches it.
	 */
	if ((ntohl(inany_to4(&m.dst).s_addr) >> 24) == 127 ||
	    (ntohl(inany_to4(&m.dst).s_addr) >> 24) == 0) {
		c->cnt.drop_dst++;
		return;
	}
	m.qp = f->qp;
	ip_dispatch(c, &m, &l4, f);
}

/**
 * ip6_input() - an IPv6 packet from the guest: checked, then dispatched
 * @c:		execution context
 * @p:		the packet (Ethernet payload)
 * @f:		the frame it came in
 */
static void ip6_input(struct ctx *c, const struct pkt *p,
		       const struct link_in_frame *f)
{
	struct l4_meta m;
	struct pkt l4;
	int rc;

	rc = ip6_parse(p, &m, &l4);
	if (rc) {
		if (rc == -2)
			c->cnt.drop_frag++;
		else
			c->cnt.drop_ip6++;
		return;
	}

	if (!gaddr_src6_ok(&c->conf, &m.src, m.proto)) {
		c->cnt.drop_src++;
		return;
	}
	if (IN6_IS_ADDR_LOOPBACK(&m.dst) || IN6_IS_ADDR_UNSPECIFIED(&m.dst) ||
	    IN6_IS_ADDR_V4MAPPED(&m.dst)) {
		c->cnt.drop_dst++;
		return;
	}
	if (!c->gaddr6_ll_known && IN6_IS_ADDR_LINKLOCAL(&m.src))
		gaddr_seen6_ll(c, &m.src);
	m.qp = f->qp;
	ip_dispatch(c, &m, &l4, f);
}

/**
 * guest_frame_in() - dispatch one frame from the guest
 * @c:		execution context
 * @f:		the frame, and what its back-end knows of it
 */
void guest_frame_in(struct ctx *c, const struct link_in_frame *f)
{
	const struct pkt *frame = &f->pkt;
	const uint8_t *h = pkt_get(frame, 0, ETH_HLEN_);
	struct pkt payload;

	if (!h || !pkt_sub(frame, ETH_HLEN_, &payload)) {
		c->cnt.drop_eth++;
		return;
	}
	trace("frame from the guest: %zu bytes, ethertype 0x%04x",
	      (size_t)frame->len, rd16(h + 12));
	/* A multicast source address is never legitimate */
	if (h[6] & 1) {
		c->cnt.drop_eth++;
		return;
	}
	if (!c->conf.guest_mac_set &&
	    (!c->guest_mac_known || memcmp(c->guest_mac, h + 6, 6))) {
		memcpy(c->guest_mac, h + 6, 6);
		c->guest_mac_known = true;
		debug("guest MAC %02x:%02x:%02x:%02x:%02x:%02x",
		      h[6], h[7], h[8], h[9], h[10], h[11]);
	}

	switch (rd16(h + 12)) {
	case ETHERTYPE_ARP_:
		arp_input(c, &payload, h + 6, f->qp);
		break;
	case ETHERTYPE_IPV4_:
		ip4_input(c, &payload, f);
		break;
	case ETHERTYPE_IPV6_:
		ip6_input(c, &payload, f);
		break;
	default:
		c->cnt.drop_ethertype++;
	}
}

/**
 * guest_frames_up() - hand every batch of frames the back-end has up
 * @c:		execution context
 *
 * Guest data gathered from a batch points into the back-end's buffers:
 * it is written to the sockets before the back-end reuses them.
 */
void guest_frames_up(struct ctx *c)
{
	const struct link_in_frame *f;
	unsigned int n, i;

	while ((n = link_in_batch(c, &f))) {
		for (i = 0; i < n && link_up(c); i++)
			guest_frame_in(c, &f[i]);
		if (link_up(c))
			tcp_flush_writes(c);
		link_in_done(c);
	}
}

/**
 * guest_link_event() - an epoll event of the link's back-end
 * @c:		execution context
 * @idx:	the back-end's index in the event reference
 * @events:	epoll events
 */
void guest_link_event(struct ctx *c, uint32_t idx, uint32_t events)
{
	/* A request of the front-end may stop the rings: a migration's
	 * stop, the VMM's own.  What the guest was sent so far, ACKs held
	 * for a pass included, goes into them first: a destination that
	 * takes the guest's connections over (passt) knows them as sent,
	 * and sends none of them again.
	 */
	if (link_control_event(c, idx)) {
		tcp_flush_acks(c, true);
		link_flush(c);
	}
	link_event(c, idx, events);
	guest_frames_up(c);
}

/**
 * guest_mac_fixed() - the guest's MAC address is given, not learnt from
 *		       its frames: --mac-addr, or the namespace's tap
 * @c:		execution context
 * @mac:	the address
 */
void guest_mac_fixed(struct ctx *c, const uint8_t *mac)
{
	/* memmove: it may be given c->conf.guest_mac itself */
	memmove(c->conf.guest_mac, mac, sizeof(c->conf.guest_mac));
	memcpy(c->guest_mac, mac, sizeof(c->guest_mac));
	c->conf.guest_mac_set = c->guest_mac_known = true;
}

/**
 * guest_news() - tell the protocol layers if the guest went away, and ask
 *		  a new one for its MAC address
 * @c:		execution context
 *
 * Called by the loop after anything that may have used the link: a
 * failed write to the VMM drops it as surely as a hang-up.
 */
void guest_news(struct ctx *c)
{
	if (link_take_gone(c)) {
		/* A migration's source is done once its front-end goes */
		repair_done(c);
		tcp_guest_gone(c);
		flow_guest_gone(c);
		gaddr_reset(c);
		/* The launcher's one connection (-F) was all there was */
		if (c->conf.one_off)
			c->quit = true;
	}
	if (link_take_fresh(c)) {
		/* A new VMM may bring a new guest, with a new MAC address:
		 * frames to it are broadcast until it sends one
		 */
		if (!c->conf.guest_mac_set)
			c->guest_mac_known = false;
		tcp_guest_fresh(c);
		if (link_up(c)) {
			arp_probe_guest(c);
			icmp_ndp_probe(c);
		}
	}
	migrate_news(c);
}
