/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - Ethernet dispatch and ARP
 */
#ifndef NETSHIM_ETH_H
#define NETSHIM_ETH_H

#include <stddef.h>
#include <stdint.h>

#include "netshim/ctx.h"
#include "netshim/packet.h"

#define ETHERTYPE_IPV4_	0x0800
#define ETHERTYPE_ARP_	0x0806
#define ETHERTYPE_IPV6_	0x86dd
#define ARP_LEN		28

void eth_hdr_fill(const struct ctx *c, uint8_t *frame, const uint8_t *dst,
		  uint16_t ethertype);
size_t arp_reply(const struct conf *conf, const struct pkt *arp,
		 uint8_t *out);
void arp_input(struct ctx *c, const struct pkt *arp, const uint8_t *src_mac,
	       uint8_t qp);
void arp_probe_guest(struct ctx *c);

#endif /* NETSHIM_ETH_H */
