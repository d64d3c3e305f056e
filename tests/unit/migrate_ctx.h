/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the context the device-state unit tests load states into
 */
#ifndef NETSHIM_UNIT_MIGRATE_CTX_H
#define NETSHIM_UNIT_MIGRATE_CTX_H

#include <stdlib.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "unit.h"
#include "netshim/ctx.h"
#include "net/flow.h"
#include "link/link.h"
#include "tcp/tcp.h"

#define MIGRATE_CTX_TX	(1 << 20)	/* frames queued for the guest */

/* The state a test writes byte by byte, as the format says, not by
 * netshim's own writer
 */
static uint8_t st[8192];
static size_t len;

/**
 * put() - append bytes to the state being written
 * @p:		bytes
 * @n:		how many
 */
static inline void put(const void *p, size_t n)
{
	assert_true(len + n <= sizeof(st));
	memcpy(st + len, p, n);
	len += n;
}

/* put8(), put16(), put32() - append an integer, big endian */
static inline void put8(uint8_t v)
{
	put(&v, 1);
}

static inline void put16(uint16_t v)
{
	v = htons(v);
	put(&v, 2);
}

static inline void put32(uint32_t v)
{
	v = htonl(v);
	put(&v, 4);
}

/**
 * migrate_ctx_setup() - the reference pod, a guest on a stream socket
 *			 whose far end is closed, tables of 4 connections
 *			 and 4 flows, no repair helper
 * @c:		context, set up here
 */
static inline void migrate_ctx_setup(struct ctx *c)
{
	int sv[2];

	unit_conf(&c->conf);
	c->conf.max_tcp = 4;
	c->conf.max_flows = 4;
	c->signal_fd = c->timer_fd = c->pcap_fd = -1;
	c->repair.listen_fd = c->repair.fd = -1;
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	assert_true(c->epfd >= 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
				    SOCK_CLOEXEC, 0, sv), 0);
	c->link.ops = &link_stream_ops;
	c->link.listen_fd = c->link.fd = c->link.state_fd = -1;
	c->link.rx.size = 65536;
	c->link.rx.buf = malloc(c->link.rx.size);
	c->link.tx.size = MIGRATE_CTX_TX;
	c->link.tx.buf = malloc(c->link.tx.size);
	c->link.in = calloc(LINK_IN_MAX, sizeof(*c->link.in));
	assert_non_null(c->link.rx.buf);
	assert_non_null(c->link.tx.buf);
	assert_non_null(c->link.in);
	assert_int_equal(c->link.ops->adopt(c, sv[0]), 0);
	close(sv[1]);
	assert_int_equal(flow_init(c), 0);
	assert_int_equal(tcp_init(c), 0);
}

#endif /* NETSHIM_UNIT_MIGRATE_CTX_H */
