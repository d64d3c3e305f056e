/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - one live flow, as netshim-ctl's "flows" lists it
 */
#ifndef NETSHIM_FLOWINFO_H
#define NETSHIM_FLOWINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <netinet/in.h>

/**
 * struct flow_info - a flow of the guest, for a listing
 * @proto:	IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP or IPPROTO_ICMPV6
 * @inbound:	opened from the pod's side (a forwarded port)
 * @state:	its state, one word ("ESTAB", "SYN-SENT", ...)
 * @gaddr:	the guest's address, v4-mapped for IPv4
 * @gport:	the guest's port (echo identifier for ICMP)
 * @raddr:	the remote address, as the guest sees it
 * @rport:	the remote port (0 for ICMP)
 * @fd:		its socket in the pod, -1 if none
 * @from_guest:	bytes from the guest
 * @to_guest:	bytes to the guest
 * @born:	when it was opened, seconds (CLOCK_MONOTONIC)
 * @last:	its last activity
 */
struct flow_info {
	uint8_t proto;
	bool inbound;
	const char *state;
	struct in6_addr gaddr, raddr;
	uint16_t gport, rport;
	int fd;
	uint64_t from_guest, to_guest;
	time_t born, last;
};

#endif /* NETSHIM_FLOWINFO_H */
