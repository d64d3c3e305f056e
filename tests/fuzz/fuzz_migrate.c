// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: migrate_load(), the device state a migration's
 * destination reads
 *
 * The input is the state, netshim's own or passt's (the seeds hold both),
 * handed over a pipe as QEMU hands it.  Whatever it holds, the reader
 * must return 0 or a positive errno, never read past what it was given,
 * and leave the tables usable: the connections it resets are checked to
 * be gone, and the frames it queues for the guest to fit the queue.  The
 * context is set up as fuzz_frame's, with no repair helper: connections
 * with a socket part are reset too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "common.h"
#include "netshim/ctx.h"
#include "net/flow.h"
#include "daemon/migrate.h"
#include "link/link.h"
#include "tcp/tcp.h"

#define FUZZ_MIG_MAX	60000	/* fits a pipe's buffer: written at once */

static struct ctx ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct ctx *c = &ctx;
	int sv[2];

	(void)argc;
	(void)argv;
	fuzz_logs_off();
	fuzz_conf_fill(&c->conf);
	c->signal_fd = c->timer_fd = c->pcap_fd = -1;
	c->repair.listen_fd = c->repair.fd = -1;
	clock_gettime(CLOCK_MONOTONIC, &c->now);
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	FUZZ_CHECK(c->epfd >= 0);
	FUZZ_CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
			       SOCK_CLOEXEC, 0, sv));
	c->link.ops = &link_stream_ops;
	c->link.listen_fd = c->link.fd = c->link.state_fd = -1;
	c->link.rx.size = 65536;
	c->link.rx.buf = malloc(c->link.rx.size);
	c->link.tx.size = 1 << 20;
	c->link.tx.buf = malloc(c->link.tx.size);
	c->link.in = calloc(LINK_IN_MAX, sizeof(*c->link.in));
	FUZZ_CHECK(c->link.rx.buf && c->link.tx.buf && c->link.in);
	FUZZ_CHECK(!c->link.ops->adopt(c, sv[0]));
	FUZZ_CHECK(!flow_init(c));
	FUZZ_CHECK(!tcp_init(c));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx *c = &ctx;
	int p[2], rc;

	if (size > FUZZ_MIG_MAX)
		return -1;
	FUZZ_CHECK(!pipe2(p, O_CLOEXEC));
	FUZZ_CHECK(write(p[1], data, size) == (ssize_t)size);
	close(p[1]);
	rc = migrate_load(c, p[0]);
	close(p[0]);
	FUZZ_CHECK(rc >= 0);
	/* Without a helper nothing is kept: every connection was reset */
	FUZZ_CHECK(tcp_count(c) == 0);
	FUZZ_CHECK(c->link.tx.head <= c->link.tx.tail &&
		   c->link.tx.tail <= c->link.tx.size);
	c->link.tx.head = c->link.tx.tail = 0;
	c->guest_mac_known = c->gaddr6_known = false;
	return 0;
}
