/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the io_uring loop: the wait and the calls that need no answer
 */
#ifndef NETSHIM_URING_H
#define NETSHIM_URING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>

struct ctx;

int uring_init(struct ctx *c);
bool uring_on(const struct ctx *c);
int uring_wait(struct ctx *c, struct epoll_event *ev, int max, int timeout);
bool uring_discard(struct ctx *c, int fd, uint32_t len, uint64_t tag);
bool uring_failed(struct ctx *c, uint64_t *tag);

#endif /* NETSHIM_URING_H */
