/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - DHCPv4 (RFC 2131, 2132) and DHCPv6 (RFC 8415) servers
 *
 * Pure functions: a client message in, a reply message out.  The caller
 * wraps the reply in UDP, IP and Ethernet.
 */
#ifndef NETSHIM_DHCP_H
#define NETSHIM_DHCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "netshim/conf.h"
#include "netshim/packet.h"

#define DHCP_SERVER_PORT	67
#define DHCP_CLIENT_PORT	68
#define DHCP6_SERVER_PORT	547
#define DHCP6_CLIENT_PORT	546

/**
 * struct dhcp4_dest - where a DHCPv4 reply goes
 * @broadcast:	send to 255.255.255.255 and ff:ff:ff:ff:ff:ff
 * @chaddr:	client hardware address (destination MAC when not broadcast)
 * @yiaddr:	destination IPv4 address when not broadcast
 */
struct dhcp4_dest {
	bool broadcast;
	uint8_t chaddr[6];
	struct in_addr yiaddr;
};

size_t dhcp4_reply(const struct conf *c, const struct pkt *msg,
		   uint8_t *out, size_t size, struct dhcp4_dest *dest);
size_t dhcp6_reply(const struct conf *c, const struct pkt *msg,
		   uint8_t *out, size_t size);

#endif /* NETSHIM_DHCP_H */
