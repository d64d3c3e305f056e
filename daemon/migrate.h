/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - a migrated guest's state, from the source to the destination
 */
#ifndef NETSHIM_MIGRATE_H
#define NETSHIM_MIGRATE_H

#include <stdbool.h>

#include "netshim/ctx.h"

#define MIGRATE_MAGIC		0x4e53484d49475254ULL	/* "NSHMIGRT" */
#define MIGRATE_VERSION		1

/* Sections of netshim's own stream; an upgrade in place (upgrade.c) has
 * its own besides
 */
enum migrate_section {
	MIGRATE_GUEST	= 1,	/* the guest's MAC and IPv6 addresses */
	MIGRATE_TCP	= 2,	/* TCP connections (tcp/migrate.c) */
	MIGRATE_UDP	= 3,	/* UDP flows (udp/migrate.c) */
	MIGRATE_ICMP	= 4,	/* ICMP echo flows (icmp/migrate.c) */
	MIGRATE_END	= 0xffff,
};

struct migio;

int migrate_guest_put(struct ctx *c, struct migio *io);
int migrate_guest(struct ctx *c, struct migio *io);
int migrate_save(struct ctx *c, int fd);
int migrate_load(struct ctx *c, int fd);
void migrate_news(struct ctx *c);

/* migrate_passt.c: passt's stream, version 2 */
#define PASST_MAGIC		0xB1BB1D1B0BB1D1B0ULL
int migrate_passt_save(struct ctx *c, struct migio *io);
int migrate_passt_load(struct ctx *c, struct migio *io);

#endif /* NETSHIM_MIGRATE_H */
