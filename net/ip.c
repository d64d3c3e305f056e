// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - IPv4 and IPv6 headers: parsed from the guest, built to it
 *
 * The parsers check header lengths, total lengths against the frame and
 * checksums, for guest.c to decide what a packet may reach.  Fragments
 * are not reassembled: the guest's MTU is the link's, so a guest that
 * fragments is misconfigured, and reassembly would be a buffer the design
 * avoids.
 */
#include <string.h>

#include "ip.h"
#include "eth.h"
#include "link/link.h"
#include "netshim/checksum.h"
#include "netshim/inany.h"
#include "netshim/log.h"

#define IP6_MAX_EXT_HDRS	8

/**
 * ip4_parse() - validate an IPv4 packet
 * @p:		IPv4 packet, possibly followed by Ethernet padding
 * @m:		filled in: addresses, protocol, TTL
 * @l4:		filled in: the layer-4 part, padding removed
 *
 * Return: 0 if valid, -1 if malformed, -2 for a fragment, -3 for a bad
 * header checksum
 */
int ip4_parse(const struct pkt *p, struct l4_meta *m, struct pkt *l4)
{
	const uint8_t *h = pkt_get(p, 0, IP4_HLEN);
	size_t ihl, tot;
	struct in_addr a;

	if (!h || h[0] >> 4 != 4)
		return -1;
	ihl = (size_t)(h[0] & 0x0f) * 4;
	tot = rd16(h + 2);
	if (ihl < IP4_HLEN || tot < ihl || tot > p->len || !pkt_get(p, 0, ihl))
		return -1;
	if (csum_fold(csum_add(h, ihl, 0)) != 0)
		return -3;
	if (rd16(h + 6) & 0x3fff)	/* MF set or a non-zero offset */
		return -2;

	memcpy(&a, h + 12, 4);
	m->src = inany_from4(a);
	memcpy(&a, h + 16, 4);
	m->dst = inany_from4(a);
	m->proto = h[9];
	m->hop = h[8];
	m->v6 = false;
	l4->data = h + ihl;
	l4->len = tot - ihl;
	return 0;
}

/**
 * ip6_parse() - validate an IPv6 packet and skip its extension headers
 * @p:		IPv6 packet, possibly followed by Ethernet padding
 * @m:		filled in: addresses, upper-layer protocol, hop limit
 * @l4:		filled in: the upper-layer part
 *
 * Return: 0 if valid, -1 if malformed, -2 for a fragment
 */
int ip6_parse(const struct pkt *p, struct l4_meta *m, struct pkt *l4)
{
	const uint8_t *h = pkt_get(p, 0, IP6_HLEN);
	struct pkt payload;
	size_t off = 0;
	uint8_t nh;
	int i;

	if (!h || h[0] >> 4 != 6)
		return -1;
	payload.len = rd16(h + 4);
	if (payload.len > p->len - IP6_HLEN)
		return -1;
	payload.data = h + IP6_HLEN;

	nh = h[6];
	for (i = 0; i < IP6_MAX_EXT_HDRS; i++) {
		const uint8_t *e;

		if (nh == 44)
			return -2;
		if (nh != 0 && nh != 43 && nh != 60)
			break;
		if (nh == 0 && i)	/* hop-by-hop only first: RFC 8200 4.1 */
			return -1;
		e = pkt_get(&payload, off, 8);
		if (!e || !pkt_get(&payload, off, ((size_t)e[1] + 1) * 8))
			return -1;
		nh = e[0];
		off += ((size_t)e[1] + 1) * 8;
	}
	if (i == IP6_MAX_EXT_HDRS && (nh == 0 || nh == 43 || nh == 60))
		return -1;

	memcpy(&m->src, h + 8, 16);
	memcpy(&m->dst, h + 24, 16);
	m->proto = nh;
	m->hop = h[7];
	m->v6 = true;
	l4->data = payload.data + off;
	l4->len = payload.len - off;
	return 0;
}

/**
 * ip_l4_csum_ok() - verify a layer-4 checksum
 * @m:		addresses and protocol
 * @l4:		layer-4 header and payload
 *
 * Return: true if the checksum is right (or absent, for UDP over IPv4)
 */
bool ip_l4_csum_ok(const struct l4_meta *m, const struct pkt *l4)
{
	uint32_t sum;

	/* A zero UDP checksum means none over IPv4, and is invalid over
	 * IPv6 (RFC 8200 8.1) even where the data would fold to it.
	 */
	if (m->proto == IPPROTO_UDP && l4->len >= 8 && rd16(l4->data + 6) == 0)
		return !m->v6;
	if (m->proto == IPPROTO_ICMP && !m->v6)
		sum = 0;
	else if (m->v6)
		sum = csum_pseudo6(&m->src, &m->dst, m->proto, l4->len);
	else
		sum = csum_pseudo4(inany_to4(&m->src), inany_to4(&m->dst),
				   m->proto, (uint16_t)l4->len);
	return csum_fold(csum_add(l4->data, l4->len, sum)) == 0;
}

/**
 * ip_l4_csum_offset() - where a protocol keeps its checksum
 * @proto:	layer-4 protocol
 *
 * Return: offset in the layer-4 header
 */
size_t ip_l4_csum_offset(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return 16;
	case IPPROTO_UDP:
		return 6;
	default:
		return 2;	/* ICMP, ICMPv6 */
	}
}

/**
 * ip_hdrs_fill() - write Ethernet and IP headers of a frame to the guest
 * @c:		execution context
 * @frame:	frame start; layer 4 is already in place behind the headers
 * @src:	source address (v4-mapped for IPv4)
 * @dst:	destination address (v4-mapped for IPv4)
 * @proto:	layer-4 protocol
 * @l4len:	layer-4 length
 * @dst_mac:	destination MAC, NULL for the guest's
 *
 * Return: the pseudo-header sum of the layer-4 checksum, unfolded
 */
static uint32_t ip_hdrs_fill(const struct ctx *c, uint8_t *frame,
			     const struct in6_addr *src,
			     const struct in6_addr *dst, uint8_t proto,
			     size_t l4len, const uint8_t *dst_mac)
{
	bool v6 = !inany_is4(dst);
	uint8_t *ip = frame + ETH_HLEN_;
	struct in_addr s4, d4;

	eth_hdr_fill(c, frame, dst_mac, v6 ? ETHERTYPE_IPV6_ : ETHERTYPE_IPV4_);
	if (v6) {
		wr32(ip, 6u << 28);
		wr16(ip + 4, (uint16_t)l4len);
		ip[6] = proto;
		ip[7] = proto == IPPROTO_ICMPV6_ ? 255 : 64;
		memcpy(ip + 8, src, 16);
		memcpy(ip + 24, dst, 16);
		return csum_pseudo6(src, dst, proto, (uint32_t)l4len);
	}

	s4 = inany_to4(src);
	d4 = inany_to4(dst);
	ip[0] = 0x45;
	ip[1] = 0;
	wr16(ip + 2, (uint16_t)(IP4_HLEN + l4len));
	wr32(ip + 4, 0x4000);		/* id 0, DF */
	ip[8] = 64;
	ip[9] = proto;
	wr16(ip + 10, 0);
	memcpy(ip + 12, &s4, 4);
	memcpy(ip + 16, &d4, 4);
	wr16(ip + 10, csum_ip4_header(ip, IP4_HLEN));
	return proto == IPPROTO_ICMP ? 0 :
	       csum_pseudo4(s4, d4, proto, (uint16_t)l4len);
}

/**
 * ip_l4_csum_put() - write a layer-4 checksum from its running sum
 * @at:		the checksum field
 * @proto:	layer-4 protocol
 * @sum:	running sum of the pseudo-header, header and payload
 *
 * A UDP checksum of zero is sent as all ones (RFC 768): zero means none.
 */
static void ip_l4_csum_put(uint8_t *at, uint8_t proto, uint32_t sum)
{
	uint16_t csum = csum_fold(sum);

	if (proto == IPPROTO_UDP && !csum)
		csum = 0xffff;
	wr16(at, csum);
}

/**
 * ip_frame_fill() - write Ethernet and IP headers and the layer-4 checksum
 * @c:		execution context
 * @frame:	frame start; layer 4 is already in place behind the headers
 * @src:	source address (v4-mapped for IPv4)
 * @dst:	destination address (v4-mapped for IPv4)
 * @proto:	layer-4 protocol
 * @l4len:	layer-4 length
 * @dst_mac:	destination MAC, NULL for the guest's
 */
void ip_frame_fill(const struct ctx *c, uint8_t *frame,
		   const struct in6_addr *src, const struct in6_addr *dst,
		   uint8_t proto, size_t l4len, const uint8_t *dst_mac)
{
	uint8_t *l4 = frame + ip_l2l3_len(!inany_is4(dst));
	size_t csum_off = ip_l4_csum_offset(proto);
	uint32_t sum;

	wr16(l4 + csum_off, 0);
	sum = ip_hdrs_fill(c, frame, src, dst, proto, l4len, dst_mac);
	ip_l4_csum_put(l4 + csum_off, proto, csum_add(l4, l4len, sum));
}

/**
 * ip_frame_fill_offload() - write Ethernet and IP headers and the layer-4
 *			     checksum of a frame whose payload may be
 *			     scattered, or leave the checksum to the guest
 *			     when it negotiated that
 * @c:		execution context
 * @f:		the frame: headers up to layer 4's at @f->l2 (@f->hlen
 *		bytes, the layer-4 header already written), the payload in
 *		@f->iov, possibly the guest's own buffers
 * @src:	source address (v4-mapped for IPv4)
 * @dst:	destination address (v4-mapped for IPv4)
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @l4len:	layer-4 length, header and payload
 * @o:		filled in: NEEDS_CSUM and where, or no flags if the checksum
 *		was computed here; segmentation fields are the caller's
 *
 * A partial checksum is the pseudo-header's sum in the checksum field,
 * not complemented, as a driver's NEEDS_CSUM frame has it (virtio 1.2,
 * 5.1.6.2): the guest finishes it over the payload, or trusts it.  A full
 * one reads the payload where it is: in the guest's buffers, a guest
 * that rewrites them meanwhile only spoils its own frame.
 */
void ip_frame_fill_offload(const struct ctx *c, const struct link_frame *f,
			   const struct in6_addr *src,
			   const struct in6_addr *dst, uint8_t proto,
			   size_t l4len, struct link_offload *o)
{
	size_t l3 = ip_l2l3_len(!inany_is4(dst));
	size_t csum_off = ip_l4_csum_offset(proto), l4hdr = f->hlen - l3;
	uint8_t *l4 = f->l2 + l3;
	uint32_t sum;

	if (link_caps(c)->csum) {
		/* csum_fold() complements: the partial sum is the plain
		 * fold
		 */
		wr16(l4 + csum_off, (uint16_t)~csum_fold(ip_hdrs_fill(c,
				f->l2, src, dst, proto, l4len, NULL)));
		o->flags = VNET_F_NEEDS_CSUM;
		o->csum_start = (uint16_t)l3;
		o->csum_offset = (uint16_t)csum_off;
		return;
	}
	o->flags = 0;
	wr16(l4 + csum_off, 0);
	sum = ip_hdrs_fill(c, f->l2, src, dst, proto, l4len, NULL);
	/* Layer-4 headers are of even length: the payload starts on a
	 * 16-bit word of the sum
	 */
	sum = csum_add(l4, l4hdr, sum);
	ip_l4_csum_put(l4 + csum_off, proto,
		       csum_add_iov(f->iov, f->niov, l4len - l4hdr, sum));
}

/**
 * ip_tx_l4() - room for one packet to the guest
 * @c:		execution context
 * @qp:		queue pair it goes to (tx_reserve())
 * @v6:		IPv6 (else IPv4)
 * @l4max:	largest layer-4 length
 *
 * Return: where layer 4 goes, or NULL if the queue to the VMM is full
 */
uint8_t *ip_tx_l4(struct ctx *c, uint8_t qp, bool v6, size_t l4max)
{
	uint8_t *frame = tx_reserve(c, qp, ip_l2l3_len(v6) + l4max);

	if (!frame) {
		c->cnt.drop_tx_full++;
		return NULL;
	}
	return frame + ip_l2l3_len(v6);
}

/**
 * ip_tx_send() - finish and queue a packet built at ip_tx_l4()'s pointer
 * @c:		execution context
 * @l4:		pointer returned by ip_tx_l4()
 * @src:	source address (v4-mapped for IPv4)
 * @dst:	destination address, same family
 * @proto:	layer-4 protocol
 * @l4len:	layer-4 length
 * @dst_mac:	destination MAC, NULL for the guest's
 */
void ip_tx_send(struct ctx *c, uint8_t *l4, const struct in6_addr *src,
		const struct in6_addr *dst, uint8_t proto, size_t l4len,
		const uint8_t *dst_mac)
{
	uint8_t *frame = l4 - ip_l2l3_len(!inany_is4(dst));

	ip_frame_fill(c, frame, src, dst, proto, l4len, dst_mac);
	tx_commit(c, frame, ip_l2l3_len(!inany_is4(dst)) + l4len);
}
