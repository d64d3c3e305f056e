// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - passt's device state (version 2), read and written
 *
 * A KubeVirt upgrade moves every running VM to a new launcher pod by live
 * migration: a cluster that switches its back-end from passt to netshim
 * migrates each VM from a passt source to a netshim destination, and a
 * rollback goes the other way, with the launchers' command lines as they
 * are.  The source cannot ask what the destination is, so a netshim
 * source writes passt's stream unless told otherwise (--migrate-format),
 * and a netshim destination reads either, by the magic number.
 *
 * passt's stream, integers big endian: magic (8), the version written
 * (4), the oldest version that reads it (4); then the guest's addresses
 * as passt saw them (PASST_GUEST bytes): its global and link-local IPv6
 * addresses (16 each), its IPv4 address (4), its MAC address (6); then
 * the TCP connections (tcp/migrate_passt.c), and nothing after them: passt
 * reads no further, and QEMU fails a migration whose destination leaves
 * bytes of the state unread (its write into the pipe fails).  So what
 * the stream has no room for does not go: UDP and ICMP echo flows end at
 * the source, as passt's do, and the guest's next datagram or echo
 * request opens them again at the destination.
 */
#include <errno.h>
#include <string.h>
#include <netinet/in.h>

#include "migrate.h"
#include "net/flow.h"
#include "netshim/log.h"
#include "netshim/migio.h"
#include "tcp/tcp.h"

#define PASST_VERSION		2
#define PASST_GUEST		42

/**
 * migrate_passt_ends() - say once what of the guest's state passt's
 *			  stream does not carry
 * @c:		execution context
 */
static void migrate_passt_ends(struct ctx *c)
{
	uint32_t i, udp = 0, icmp = 0, hi = flow_end(c);

	for (i = 0; i < hi; i++) {
		const struct flow *f = flow_at(c, i);

		if (f && f->proto == IPPROTO_UDP)
			udp++;
		else if (f)
			icmp++;
	}
	if (udp)
		info("migration: passt's stream carries no UDP flows: %u end "
		     "here, and the guest's next datagram opens each again "
		     "(--migrate-format netshim keeps them)", udp);
	if (icmp)
		info("migration: passt's stream carries no ICMP echo flows: "
		     "%u end here (--migrate-format netshim keeps them)", icmp);
}

/**
 * migrate_passt_save() - write our state as passt's stream
 * @c:		execution context
 * @io:		the stream, at its start
 *
 * Return: 0 on success, -1 with @io->err set
 */
int migrate_passt_save(struct ctx *c, struct migio *io)
{
	uint8_t g[PASST_GUEST] = { 0 };

	/* What passt holds before it saw the guest: the configured
	 * address, and the broadcast address for its MAC
	 */
	memcpy(g, c->gaddr6_known ? &c->gaddr6_seen : &c->conf.addr6, 16);
	if (c->gaddr6_ll_known)
		memcpy(g + 16, &c->gaddr6_ll, 16);
	memcpy(g + 32, &c->conf.addr4, 4);
	if (c->guest_mac_known)
		memcpy(g + 36, c->guest_mac, 6);
	else
		memset(g + 36, 0xff, 6);
	migrate_passt_ends(c);
	return migio_put_u64(io, PASST_MAGIC) ||
	       migio_put_u32(io, PASST_VERSION) ||
	       migio_put_u32(io, PASST_VERSION) ||
	       migio_put(io, g, sizeof(g)) || tcp_passt_save(c, io) ? -1 : 0;
}

/**
 * migrate_passt_guest() - take the guest's addresses from passt's stream
 * @c:		execution context
 * @g:		the addresses, PASST_GUEST bytes
 *
 * Only what can be the guest's own: a unicast MAC address, a global and
 * a link-local unicast IPv6 address.  The IPv4 address is the one the
 * pod gives (DHCP), here as at the source.
 */
static void migrate_passt_guest(struct ctx *c, const uint8_t *g)
{
	static const uint8_t none[6];
	struct in6_addr a6;

	memcpy(&a6, g, 16);
	if (!IN6_IS_ADDR_UNSPECIFIED(&a6) && !IN6_IS_ADDR_MULTICAST(&a6) &&
	    !IN6_IS_ADDR_LINKLOCAL(&a6) && !IN6_IS_ADDR_LOOPBACK(&a6) &&
	    !IN6_IS_ADDR_V4MAPPED(&a6)) {
		c->gaddr6_seen = a6;
		c->gaddr6_known = true;
	}
	memcpy(&a6, g + 16, 16);
	if (IN6_IS_ADDR_LINKLOCAL(&a6)) {
		c->gaddr6_ll = a6;
		c->gaddr6_ll_known = true;
	}
	if (!(g[36] & 1) && memcmp(g + 36, none, 6) &&
	    !c->conf.guest_mac_set) {
		memcpy(c->guest_mac, g + 36, 6);
		c->guest_mac_known = true;
	}
}

/**
 * migrate_passt_load() - take a migrated guest's state from passt
 * @c:		execution context
 * @io:		the stream, after the magic number
 *
 * Read as passt reads it: any version range that holds version 2.
 *
 * Return: 0 on success, -1 with @io->err set (ENOTSUP for a stream no
 * version of which we read)
 */
int migrate_passt_load(struct ctx *c, struct migio *io)
{
	uint8_t g[PASST_GUEST];
	uint32_t v, compat;

	if (migio_get_u32(io, &v) || migio_get_u32(io, &compat))
		return -1;
	if (!compat || compat > PASST_VERSION || v < PASST_VERSION) {
		err("migration: passt's device state, versions %u to %u: "
		    "this netshim reads version %u", compat, v, PASST_VERSION);
		io->err = ENOTSUP;
		return -1;
	}
	if (migio_get(io, g, sizeof(g)))
		return -1;
	migrate_passt_guest(c, g);
	return tcp_passt_load(c, io);
}
