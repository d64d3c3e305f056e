/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - sockmap fast path for local flows: loader and map access
 */
#ifndef NETSHIM_SOCKMAP_H
#define NETSHIM_SOCKMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "netshim/conf.h"

struct sockmap_state;

/**
 * struct sockmap_totals - what the verdict program counted, all CPUs
 * @bytes:	bytes redirected socket to socket
 * @skbs:	buffers redirected
 * @misses:	buffers that found no slot or no peer
 */
struct sockmap_totals {
	uint64_t bytes;
	uint64_t skbs;
	uint64_t misses;
};

int sockmap_load(const struct conf *conf, unsigned int pairs,
		 struct sockmap_state **sm);
int sockmap_add(struct sockmap_state *sm, unsigned int pair, const int fd[2],
		uint64_t moved_base[2]);
void sockmap_forget(struct sockmap_state *sm, unsigned int pair);
uint64_t sockmap_moved(const struct sockmap_state *sm, unsigned int slot);
int sockmap_totals(const struct sockmap_state *sm, struct sockmap_totals *t);
int sockmap_written(int fd, uint64_t *n);
int sockmap_unread(int fd);
bool sockmap_closing(int fd);

#endif /* NETSHIM_SOCKMAP_H */
