/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - a migrated guest's state, from the source to the destination
 */
#ifndef NETSHIM_MIGRATE_H
#define NETSHIM_MIGRATE_H

#include <stdbool.h>

#include "ctx.h"

#define MIGRATE_MAGIC		0x4e53484d49475254ULL	/* "NSHMIGRT" */
#define MIGRATE_VERSION		1

struct migio;

int migrate_save(struct ctx *c, int fd);
int migrate_load(struct ctx *c, int fd);
void migrate_news(struct ctx *c);

/* migrate_passt.c: passt's stream, version 2 */
#define PASST_MAGIC		0xB1BB1D1B0BB1D1B0ULL
int migrate_passt_save(struct ctx *c, struct migio *io);
int migrate_passt_load(struct ctx *c, struct migio *io);

#endif /* NETSHIM_MIGRATE_H */
