/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - table of UDP and ICMP echo flows, sized at start-up
 */
#ifndef NETSHIM_FLOW_H
#define NETSHIM_FLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <netinet/in.h>

#include "netshim/ctx.h"

/**
 * struct flow - one guest UDP or ICMP echo conversation
 * @proto:	IPPROTO_UDP, IPPROTO_ICMP or IPPROTO_ICMPV6; 0 when free
 * @inbound:	opened by a datagram to a forwarded port: @fd is the listener's
 * @gaddr:	guest address (v4-mapped for IPv4)
 * @raddr:	remote address as the guest sees it
 * @paddr:	an inbound flow's client in the pod itself: its own address,
 *		which the guest sees as @raddr (fwd_inbound_peer()); :: for
 *		any other flow
 * @gport:	guest port, or echo identifier
 * @rport:	remote port (0 for echo)
 * @fd:		host socket
 * @last:	last activity, seconds
 * @hop:	TTL or hop limit last set on @fd from the guest's packets, 0
 *		while the socket has the pod's default
 * @qp:		queue pair its datagrams to the guest go to: the one the
 *		guest's last datagram came in on (l4_meta.qp), or for an
 *		inbound flow link_spread()'s until the guest answers
 * @born:	when it was opened, seconds
 * @from_guest:	payload bytes from the guest, for netshim-ctl's flows
 * @to_guest:	payload bytes to the guest
 */
struct flow {
	uint8_t proto;
	bool inbound;
	uint8_t hop;
	uint8_t qp;
	struct in6_addr gaddr, raddr, paddr;
	uint16_t gport, rport;
	int fd;
	time_t last;
	time_t born;
	uint64_t from_guest, to_guest;
};

int flow_init(struct ctx *c);
uint32_t flow_key_hash(uint8_t proto, const struct in6_addr *gaddr,
		       uint16_t gport, const struct in6_addr *raddr,
		       uint16_t rport);
struct flow *flow_lookup(struct ctx *c, uint8_t proto,
			 const struct in6_addr *gaddr, uint16_t gport,
			 const struct in6_addr *raddr, uint16_t rport);
struct flow *flow_new(struct ctx *c, uint8_t proto,
		      const struct in6_addr *gaddr, uint16_t gport,
		      const struct in6_addr *raddr, uint16_t rport);
void flow_free(struct ctx *c, struct flow *f);
void flow_forget_inbound(struct ctx *c, int fd);
struct flow *flow_at(struct ctx *c, uint32_t idx);
uint32_t flow_index(struct ctx *c, const struct flow *f);
int flow_watch(struct ctx *c, struct flow *f);
int flow_sock_errors_on(struct flow *f);
void flow_hop(struct flow *f, uint8_t hop);
void flow_timer(struct ctx *c);
void flow_guest_gone(struct ctx *c);
uint32_t flow_room(struct ctx *c);
uint32_t flow_end(struct ctx *c);
unsigned int flow_count(struct ctx *c);
uint16_t flow_sock_port(const struct flow *f);

/* Largest record of a migrated flow (udp/migrate.c, icmp/migrate.c) */
#define FLOW_MIG_REC_MAX	64

struct migio;
int flow_migrate_load(struct ctx *c, struct migio *io, const char *what,
		      size_t rec, bool (*ok)(const uint8_t *r),
		      bool (*open)(struct ctx *c, const uint8_t *r),
		      uint64_t *opened);

int flow_upgrade_save(struct ctx *c, struct migio *io);
int flow_upgrade_load(struct ctx *c, struct migio *io,
		      int (*listener)(struct ctx *c, uint64_t cookie));
uint64_t flow_sock_cookie(int fd);

#endif /* NETSHIM_FLOW_H */
