/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - a migrated guest's state, from the source to the destination
 */
#ifndef NETSHIM_MIGRATE_H
#define NETSHIM_MIGRATE_H

#include <stdbool.h>

#include "ctx.h"

#define MIGRATE_MAGIC		0x4e53484d49475254ULL	/* "NSHMIGRT" */
#define MIGRATE_VERSION		1

int migrate_save(struct ctx *c, int fd);
int migrate_load(struct ctx *c, int fd);
void migrate_news(struct ctx *c);

#endif /* NETSHIM_MIGRATE_H */
