// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - Ethernet headers to the guest, and ARP
 *
 * netshim is every other host on the guest's link: it answers ARP for any
 * IPv4 address except the guest's own, so the guest sends everything to
 * netshim's MAC whatever its routes say.
 */
#include <string.h>

#include "eth.h"
#include "link/link.h"
#include "netshim/log.h"

static const uint8_t mac_broadcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/**
 * eth_hdr_fill() - write an Ethernet header from netshim to the guest
 * @c:		execution context
 * @frame:	frame start
 * @dst:	destination MAC, NULL for the guest's (broadcast until known)
 * @ethertype:	ethertype, host order
 */
void eth_hdr_fill(const struct ctx *c, uint8_t *frame, const uint8_t *dst,
		  uint16_t ethertype)
{
	if (!dst)
		dst = c->guest_mac_known ? c->guest_mac : mac_broadcast;
	memcpy(frame, dst, 6);
	memcpy(frame + 6, c->conf.our_mac, 6);
	wr16(frame + 12, ethertype);
}

/**
 * arp_reply() - answer an ARP request on behalf of everybody but the guest
 * @conf:	configuration (the guest's own address)
 * @arp:	ARP packet from the guest
 * @out:	ARP_LEN bytes for the reply
 *
 * Return: ARP_LEN if @out holds a reply, 0 if there is nothing to answer
 */
size_t arp_reply(const struct conf *conf, const struct pkt *arp, uint8_t *out)
{
	const uint8_t *a = pkt_get(arp, 0, ARP_LEN);
	struct in_addr sip, tip;

	/* Ethernet/IPv4 requests only */
	if (!a || rd16(a) != 1 || rd16(a + 2) != ETHERTYPE_IPV4_ ||
	    a[4] != 6 || a[5] != 4 || rd16(a + 6) != 1)
		return 0;

	memcpy(&sip, a + 14, 4);
	memcpy(&tip, a + 24, 4);

	/* Gratuitous ARP, and probes or requests for the guest's own
	 * address (RFC 5227 conflict detection): never claim them.
	 */
	if (sip.s_addr == tip.s_addr || tip.s_addr == INADDR_ANY ||
	    (conf->v4 && tip.s_addr == conf->addr4.s_addr))
		return 0;

	wr16(out, 1);
	wr16(out + 2, ETHERTYPE_IPV4_);
	out[4] = 6;
	out[5] = 4;
	wr16(out + 6, 2);
	memcpy(out + 8, conf->our_mac, 6);
	memcpy(out + 14, &tip, 4);
	memcpy(out + 18, a + 8, 6);
	memcpy(out + 24, &sip, 4);
	return ARP_LEN;
}

/**
 * arp_probe_guest() - ask the guest for its MAC address (ARP request)
 * @c:		execution context
 *
 * Sent when a VMM connects, as passt does: a guest that already has its
 * address (a back-end restarted, a guest migrated here) answers at once,
 * so frames to it need not go to the broadcast address meanwhile.  From
 * the gateway, as the guest's own neighbour lookups expect.  On the first
 * queue pair: no frame of this guest's came in yet.
 */
void arp_probe_guest(struct ctx *c)
{
	uint8_t *frame, *a;

	if (!c->conf.v4)
		return;
	frame = tx_reserve(c, 0, ETH_HLEN_ + ARP_LEN);
	if (!frame)
		return;
	eth_hdr_fill(c, frame, mac_broadcast, ETHERTYPE_ARP_);
	a = frame + ETH_HLEN_;
	wr16(a, 1);			/* Ethernet */
	wr16(a + 2, ETHERTYPE_IPV4_);
	a[4] = 6;
	a[5] = 4;
	wr16(a + 6, 1);			/* request */
	memcpy(a + 8, c->conf.our_mac, 6);
	memcpy(a + 14, &c->conf.gw4, 4);
	memset(a + 18, 0, 6);
	memcpy(a + 24, &c->conf.addr4, 4);
	tx_commit(c, frame, ETH_HLEN_ + ARP_LEN);
	c->cnt.guest_probes++;
}

/**
 * arp_input() - handle an ARP packet from the guest
 * @c:		execution context
 * @arp:	ARP packet
 * @src_mac:	source MAC of the frame
 * @qp:		queue pair the frame came in on, where the reply goes
 */
void arp_input(struct ctx *c, const struct pkt *arp, const uint8_t *src_mac,
	       uint8_t qp)
{
	uint8_t reply[ARP_LEN], *frame;

	if (!arp_reply(&c->conf, arp, reply)) {
		if (!pkt_get(arp, 0, 8))
			c->cnt.drop_arp++;
		return;
	}
	frame = tx_reserve(c, qp, ETH_HLEN_ + ARP_LEN);
	if (!frame) {
		c->cnt.drop_tx_full++;
		return;
	}
	eth_hdr_fill(c, frame, src_mac, ETHERTYPE_ARP_);
	memcpy(frame + ETH_HLEN_, reply, ARP_LEN);
	tx_commit(c, frame, ETH_HLEN_ + ARP_LEN);
	c->cnt.arp_replies++;
}
