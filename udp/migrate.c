// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - UDP flows in a migrated guest's device state
 *
 * A UDP flow is its 4-tuple and the pod port its socket is bound to: the
 * destination opens a socket on that port again and connects it to the
 * same remote, so the remote keeps seeing the guest's datagrams come from
 * the port it knows (a WireGuard or QUIC peer, a DNS client waiting for
 * its answer), and its datagrams to the guest find a socket there before
 * the guest sends again, instead of an ICMP port unreachable.  A flow
 * opened by a datagram to a -u port goes back to the destination's
 * listener for its guest port.  Where the port is taken (the source still
 * holds it, in the same pod without --migrate-no-linger), the flow opens
 * on any free port.  A flow from a client in the pod itself (the guest
 * sees it at the gateway's or netshim's link-local address) stays: the
 * client's process stays with the source pod, and its next datagram
 * opens the flow again where it can.
 *
 * Section body, integers big endian: the number of flows (4), then per
 * flow (UDP_MIG_REC bytes): guest address (16, v4-mapped), remote address
 * (16), guest port (2), remote port (2), the pod port the source's socket
 * was bound to (2, 0 for an inbound flow), flags (1: UDP_MIG_INBOUND), the
 * TTL or hop limit the guest set (1, 0 for the pod's default).
 *
 * The destination reads it as untrusted input: a malformed record, or more
 * flows than its table holds (--max-flows), refuses the whole state.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "udp.h"
#include "netshim/inany.h"
#include "netshim/log.h"
#include "netshim/migio.h"

#define UDP_MIG_REC		40
#define UDP_MIG_INBOUND		0x01

/**
 * udp_mig_goes() - tell if a flow goes with a migration
 * @f:		flow, or NULL
 *
 * Return: true for a UDP flow but one from a client in the pod itself
 */
static bool udp_mig_goes(const struct flow *f)
{
	return f && f->proto == IPPROTO_UDP &&
	       IN6_IS_ADDR_UNSPECIFIED(&f->paddr);
}

/**
 * udp_migrate_save() - write the guest's UDP flows
 * @c:		execution context
 * @io:		the stream, after the section's type
 *
 * With --migrate-no-linger the sockets of the flows written are closed
 * here, so that a destination in the same pod can bind their ports; if
 * the migration then fails, the guest's next datagram opens the flow again.
 *
 * Return: 0 on success, -1 with @io->err set
 */
int udp_migrate_save(struct ctx *c, struct migio *io)
{
	uint32_t i, n = 0, hi = flow_end(c);

	for (i = 0; i < hi; i++)
		n += udp_mig_goes(flow_at(c, i));
	if (migio_put_u32(io, n))
		return -1;
	for (i = 0; i < hi; i++) {
		struct flow *f = flow_at(c, i);
		uint8_t r[UDP_MIG_REC];
		uint16_t port;

		if (!udp_mig_goes(f))
			continue;
		port = f->inbound ? 0 : flow_sock_port(f);
		memcpy(r, &f->gaddr, 16);
		memcpy(r + 16, &f->raddr, 16);
		migio_wr_be16(r + 32, f->gport);
		migio_wr_be16(r + 34, f->rport);
		migio_wr_be16(r + 36, port);
		r[38] = f->inbound ? UDP_MIG_INBOUND : 0;
		r[39] = f->hop;
		if (migio_put(io, r, sizeof(r)))
			return -1;
		if (c->conf.migrate_no_linger && !f->inbound)
			flow_free(c, f);
	}
	if (n)
		info("migration: %u UDP flows go with their ports", n);
	return 0;
}

/**
 * udp_migrate_one() - open a migrated flow here
 * @c:		execution context
 * @r:		its record, checked
 *
 * Return: true if the flow is open here
 */
static bool udp_migrate_one(struct ctx *c, const uint8_t *r)
{
	struct in6_addr gaddr, raddr;
	uint16_t gport = migio_rd_be16(r + 32), rport = migio_rd_be16(r + 34);
	uint16_t port = migio_rd_be16(r + 36), bound;
	struct flow *f;
	int fd;

	memcpy(&gaddr, r, 16);
	memcpy(&raddr, r + 16, 16);
	if (flow_lookup(c, IPPROTO_UDP, &gaddr, gport, &raddr, rport))
		return false;
	if (r[38] & UDP_MIG_INBOUND) {
		fd = udp_listener_fd(c, &gaddr, gport);
		if (fd < 0)
			return false;
		f = flow_new(c, IPPROTO_UDP, &gaddr, gport, &raddr, rport);
		if (!f)
			return false;
		f->inbound = true;
		f->fd = fd;
		c->cnt.udp_flows++;
		return true;
	}
	f = flow_new(c, IPPROTO_UDP, &gaddr, gport, &raddr, rport);
	if (!f || udp_flow_open(c, f, port ? port : gport))
		return false;
	if (r[39])
		flow_hop(f, r[39]);
	bound = port ? flow_sock_port(f) : 0;
	if (bound != port)
		debug("migration: UDP flow from guest port %u: pod port %u "
		      "taken, %u instead", gport, port, bound);
	return true;
}

/**
 * udp_mig_ok() - tell if a UDP record can be
 * @r:		the record
 *
 * Return: true for ports other than 0, known flags, and no pod port for
 * an inbound flow (it has the listener's)
 */
static bool udp_mig_ok(const uint8_t *r)
{
	return migio_rd_be16(r + 32) && migio_rd_be16(r + 34) &&
	       !(r[38] & ~UDP_MIG_INBOUND) &&
	       !((r[38] & UDP_MIG_INBOUND) && migio_rd_be16(r + 36));
}

/**
 * udp_migrate_load() - open the migrated guest's UDP flows
 * @c:		execution context
 * @io:		the stream, at the section's body
 *
 * Return: 0 on success, -1 with @io->err set (EINVAL for a malformed
 * record, EFBIG for more flows than --max-flows allows)
 */
int udp_migrate_load(struct ctx *c, struct migio *io)
{
	return flow_migrate_load(c, io, "UDP flows", UDP_MIG_REC, udp_mig_ok,
				 udp_migrate_one, &c->cnt.udp_migrated);
}
