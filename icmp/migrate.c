// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - ICMP echo flows in a migrated guest's device state
 *
 * An echo flow is the guest's address, the remote, the guest's echo
 * identifier and the identifier the source's ping socket had in the pod:
 * the destination opens a ping socket with that identifier again, so that
 * replies still on their way when the guest stopped reach the flow here
 * and go to the guest with its own identifier, and the TTL or hop limit
 * the guest set (traceroute -I) stays.  Where the identifier is taken
 * (the source still holds it, in the same pod without
 * --migrate-no-linger), the flow opens with any.
 *
 * Section body, integers big endian: the number of flows (4), then per
 * flow (ICMP_MIG_REC bytes): guest address (16, v4-mapped for ICMP),
 * remote address (16), the guest's identifier (2), the pod's (2), the TTL
 * or hop limit the guest set (1, 0 for the pod's default), and a byte
 * that must be 0.
 *
 * The destination reads it as untrusted input: a malformed record, or more
 * flows than its table holds (--max-flows), refuses the whole state.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "icmp.h"
#include "netshim/inany.h"
#include "netshim/log.h"
#include "netshim/migio.h"

#define ICMP_MIG_REC		38

/**
 * icmp_mig_is_echo() - tell if a flow is an echo flow
 * @f:		flow, or NULL
 *
 * Return: true for an ICMP or ICMPv6 one
 */
static bool icmp_mig_is_echo(const struct flow *f)
{
	return f && (f->proto == IPPROTO_ICMP || f->proto == IPPROTO_ICMPV6_);
}

/**
 * icmp_migrate_save() - write the guest's echo flows
 * @c:		execution context
 * @io:		the stream, after the section's type
 *
 * With --migrate-no-linger the sockets of the flows written are closed
 * here, so that a destination in the same pod can take their identifiers;
 * if the migration then fails, the guest's next echo opens the flow again.
 *
 * Return: 0 on success, -1 with @io->err set
 */
int icmp_migrate_save(struct ctx *c, struct migio *io)
{
	uint32_t i, n = 0, hi = flow_end(c);

	for (i = 0; i < hi; i++)
		n += icmp_mig_is_echo(flow_at(c, i));
	if (migio_put_u32(io, n))
		return -1;
	for (i = 0; i < hi; i++) {
		struct flow *f = flow_at(c, i);
		uint8_t r[ICMP_MIG_REC] = { 0 };

		if (!icmp_mig_is_echo(f))
			continue;
		memcpy(r, &f->gaddr, 16);
		memcpy(r + 16, &f->raddr, 16);
		migio_wr_be16(r + 32, f->gport);
		migio_wr_be16(r + 34, flow_sock_port(f));
		r[36] = f->hop;
		if (migio_put(io, r, sizeof(r)))
			return -1;
		if (c->conf.migrate_no_linger)
			flow_free(c, f);
	}
	if (n)
		info("migration: %u ICMP echo flows go with their identifiers",
		     n);
	return 0;
}

/**
 * icmp_migrate_one() - open a migrated echo flow here
 * @c:		execution context
 * @r:		its record, checked
 *
 * Return: true if the flow is open here
 */
static bool icmp_migrate_one(struct ctx *c, const uint8_t *r)
{
	uint16_t gid = migio_rd_be16(r + 32), id = migio_rd_be16(r + 34);
	struct in6_addr gaddr, raddr;
	uint8_t proto;
	struct flow *f;

	memcpy(&gaddr, r, 16);
	memcpy(&raddr, r + 16, 16);
	proto = inany_is4(&gaddr) ? IPPROTO_ICMP : IPPROTO_ICMPV6_;
	if (flow_lookup(c, proto, &gaddr, gid, &raddr, 0))
		return false;
	f = flow_new(c, proto, &gaddr, gid, &raddr, 0);
	if (!f || icmp_ping_socket(c, f, id ? id : gid))
		return false;
	if (r[36])
		flow_hop(f, r[36]);
	if (id && flow_sock_port(f) != id)
		debug("migration: echo flow of identifier %u: %u taken here",
		      gid, id);
	return true;
}

/**
 * icmp_mig_ok() - tell if an echo record can be
 * @r:		the record
 *
 * Return: true if its last byte is 0
 */
static bool icmp_mig_ok(const uint8_t *r)
{
	return !r[37];
}

/**
 * icmp_migrate_load() - open the migrated guest's echo flows
 * @c:		execution context
 * @io:		the stream, at the section's body
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL for a malformed
 * record, EFBIG for more flows than --max-flows allows)
 */
int icmp_migrate_load(struct ctx *c, struct migio *io)
{
	return flow_migrate_load(c, io, "ICMP echo flows", ICMP_MIG_REC,
				 icmp_mig_ok, icmp_migrate_one,
				 &c->cnt.icmp_migrated);
}
