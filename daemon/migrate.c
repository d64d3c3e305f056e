// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - a migrated guest's state, from the source to the destination
 *
 * When the front-end migrates the guest it asks the source's back-end for
 * its state and hands it to the destination's (vhost-user's
 * SET_DEVICE_STATE_FD, then CHECK_DEVICE_STATE on both sides).  The
 * state is a stream of sections behind a header:
 *
 *   magic (8), version (4)
 *   section type (2), its body; ... ; MIGRATE_END (2)
 *
 * with integers big endian.  The destination reads it as untrusted input:
 * a wrong magic, a newer version, an unknown section, a malformed or
 * truncated one, or bytes after the end refuse the whole state with a
 * line in the log saying which, the front-end's check fails, and netshim
 * goes on serving.  Nothing is allocated: sections are written and read
 * through migio's fixed buffer, a connection at a time.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "migrate.h"
#include "icmp/icmp.h"
#include "link/link.h"
#include "netshim/log.h"
#include "netshim/migio.h"
#include "netshim/repair.h"
#include "tcp/tcp.h"
#include "udp/udp.h"

#define GUEST_MAC_KNOWN		0x01
#define GUEST_ADDR6_KNOWN	0x02
#define GUEST_LEN		24

/* The stream of the transfer under way: one at a time, never allocated */
static struct migio migrate_io;

/**
 * migrate_guest_put() - write the guest's addresses, a section's body
 * @c:		execution context
 * @io:		the stream
 *
 * Return: 0 on success, -1 with @io->err set
 */
int migrate_guest_put(struct ctx *c, struct migio *io)
{
	uint8_t g[GUEST_LEN] = { 0 };

	memcpy(g, c->guest_mac, 6);
	g[6] = (c->guest_mac_known ? GUEST_MAC_KNOWN : 0) |
	       (c->gaddr6_known ? GUEST_ADDR6_KNOWN : 0);
	memcpy(g + 8, &c->gaddr6_seen, 16);
	return migio_put(io, g, sizeof(g));
}

/**
 * migrate_own_save() - write our state as netshim's own stream
 * @c:		execution context
 * @io:		the stream, at its start
 *
 * Return: 0 on success, -1 with @io->err set
 */
static int migrate_own_save(struct ctx *c, struct migio *io)
{
	return migio_put_u64(io, MIGRATE_MAGIC) ||
	       migio_put_u32(io, MIGRATE_VERSION) ||
	       migio_put_u16(io, MIGRATE_GUEST) || migrate_guest_put(c, io) ||
	       migio_put_u16(io, MIGRATE_TCP) || tcp_migrate_save(c, io) ||
	       migio_put_u16(io, MIGRATE_UDP) || udp_migrate_save(c, io) ||
	       migio_put_u16(io, MIGRATE_ICMP) || icmp_migrate_save(c, io) ||
	       migio_put_u16(io, MIGRATE_END) ? -1 : 0;
}

/**
 * migrate_save() - write our state for a migration's destination
 * @c:		execution context
 * @fd:		the front-end's pipe, left open
 *
 * In passt's format unless --migrate-format says netshim's: the
 * destination may be either, and only passt's is read by both.
 *
 * Return: 0 on success, a positive errno on failure (logged)
 */
int migrate_save(struct ctx *c, int fd)
{
	bool own = c->conf.migrate_format == CONF_MIGRATE_NETSHIM;
	struct migio *io = &migrate_io;
	uint64_t t0 = migio_now_us();

	migio_init(io, fd);
	if ((own ? migrate_own_save(c, io) : migrate_passt_save(c, io)) ||
	    migio_flush(io)) {
		err("migration: writing our state failed after %llu bytes: %s",
		    (unsigned long long)io->total, strerror(io->err));
		return io->err;
	}
	info("migration: state written in %s's format, %llu bytes in %llu us",
	     own ? "netshim" : "passt", (unsigned long long)io->total,
	     (unsigned long long)(migio_now_us() - t0));
	return 0;
}

/**
 * migrate_guest() - take the guest's addresses from a state
 * @c:		execution context
 * @io:		the stream, at the section's body
 *
 * Return: 0 on success, -1 with @io->err set
 */
int migrate_guest(struct ctx *c, struct migio *io)
{
	uint8_t g[GUEST_LEN];

	if (migio_get(io, g, sizeof(g)))
		return -1;
	if ((g[6] & ~(GUEST_MAC_KNOWN | GUEST_ADDR6_KNOWN)) ||
	    ((g[6] & GUEST_MAC_KNOWN) && (g[0] & 1))) {
		err("migration: the guest's addresses are malformed");
		io->err = EINVAL;
		return -1;
	}
	if ((g[6] & GUEST_MAC_KNOWN) && !c->conf.guest_mac_set) {
		memcpy(c->guest_mac, g, 6);
		c->guest_mac_known = true;
	}
	if (g[6] & GUEST_ADDR6_KNOWN) {
		memcpy(&c->gaddr6_seen, g + 8, 16);
		c->gaddr6_known = true;
	}
	return 0;
}

/**
 * migrate_load() - take a migrated guest's state from the source
 * @c:		execution context
 * @fd:		the front-end's pipe, left open
 *
 * Return: 0 on success, a positive errno on failure (logged)
 */
int migrate_load(struct ctx *c, int fd)
{
	struct migio *io = &migrate_io;
	uint64_t magic, t0 = migio_now_us();
	uint32_t version;
	uint16_t type;

	migio_init(io, fd);
	if (migio_get_u64(io, &magic))
		goto fail;
	if (magic == PASST_MAGIC) {
		if (migrate_passt_load(c, io))
			goto fail;
		goto end;
	}
	if (magic != MIGRATE_MAGIC) {
		err("migration: the device state is neither netshim's nor "
		    "passt's");
		return EINVAL;
	}
	if (migio_get_u32(io, &version))
		goto fail;
	if (version != MIGRATE_VERSION) {
		err("migration: device state version %u, this netshim reads %u",
		    version, MIGRATE_VERSION);
		return ENOTSUP;
	}
	for (;;) {
		if (migio_get_u16(io, &type))
			goto fail;
		if (type == MIGRATE_END)
			break;
		if (type == MIGRATE_GUEST) {
			if (migrate_guest(c, io))
				goto fail;
		} else if (type == MIGRATE_TCP) {
			if (tcp_migrate_load(c, io))
				goto fail;
		} else if (type == MIGRATE_UDP) {
			if (udp_migrate_load(c, io))
				goto fail;
		} else if (type == MIGRATE_ICMP) {
			if (icmp_migrate_load(c, io))
				goto fail;
		} else {
			err("migration: unknown section %u in the device state",
			    type);
			return EINVAL;
		}
	}
end:
	if (!migio_at_end(io)) {
		err("migration: bytes after the end of the device state");
		return io->err ? io->err : EINVAL;
	}
	info("migration: state read in %s's format, %llu bytes in %llu us",
	     magic == PASST_MAGIC ? "passt" : "netshim",
	     (unsigned long long)io->total,
	     (unsigned long long)(migio_now_us() - t0));
	return 0;
fail:
	err("migration: reading the device state failed after %llu bytes: %s",
	    (unsigned long long)io->total,
	    io->err == EPROTO ? "it ends early" : strerror(io->err));
	return io->err;
}

/**
 * migrate_news() - carry out a state transfer the front-end asked for, and
 *		    act on one it confirmed
 * @c:		execution context
 */
void migrate_news(struct ctx *c)
{
	bool load;
	int fd, rc;

	fd = link_take_state(c, &load);
	if (fd >= 0) {
		rc = load ? migrate_load(c, fd) : migrate_save(c, fd);
		close(fd);
		tcp_migrate_release();
		link_state_done(c, !rc);
		if (rc)
			c->cnt.migrations_refused++;
		else if (load)
			c->cnt.migrations_in++;
		/* The destination's sockets are out of repair mode */
		if (load)
			repair_done(c);
	}
	if (link_take_state_back(c)) {
		tcp_migrate_back(c);
		repair_done(c);
	}
	/* Not yet over for the source: the destination may still refuse,
	 * and the guest run on here (above).  It is when the front-end goes
	 * (guest_news()) or we exit.
	 */
	if (link_take_state_out(c)) {
		c->cnt.migrations_out++;
		if (c->conf.migrate_exit) {
			info("migration complete: exiting (--migrate-exit)");
			c->quit = true;
		} else {
			info("migration complete");
		}
	}
}
