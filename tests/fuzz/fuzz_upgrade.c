// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: the state a new netshim reads from the running
 * one in an upgrade in place (daemon/upgrade.c, after the set-up)
 *
 * The input is the state's sections, as the running netshim writes them
 * once the new one said it was ready, on a UNIX socket; no descriptor
 * comes with it, so every record that needs one must be refused at its
 * mark.  Whatever it holds, the reader must return 0 or -1, never read
 * past what it was given, and leave the link's buffers within their
 * sizes.  The context is set up as fuzz_migrate's.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "common.h"
#include "netshim/ctx.h"
#include "net/flow.h"
#include "daemon/upgrade.h"
#include "link/link.h"
#include "tcp/tcp.h"
#include "udp/udp.h"

#define FUZZ_UP_MAX	60000	/* fits the socket's buffer: written at once */

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
	c->up.listen_fd = c->up.fd = -1;
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
	FUZZ_CHECK(!udp_init(c));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx *c = &ctx;
	int sv[2], rc;

	if (size > FUZZ_UP_MAX)
		return -1;
	FUZZ_CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &(int){ 1 << 20 },
		   sizeof(int));
	FUZZ_CHECK(!size || write(sv[0], data, size) == (ssize_t)size);
	close(sv[0]);
	rc = upgrade_state_read(c, sv[1]);
	close(sv[1]);
	FUZZ_CHECK(rc == 0 || rc == -1);
	/* Nothing came with a descriptor: nothing was taken */
	FUZZ_CHECK(tcp_count(c) == 0);
	FUZZ_CHECK(c->repair.fd < 0);
	FUZZ_CHECK(c->link.rx.len < c->link.rx.size);
	FUZZ_CHECK(c->link.tx.head <= c->link.tx.tail &&
		   c->link.tx.tail <= c->link.tx.size);
	c->link.tx.head = c->link.tx.tail = 0;
	c->link.rx.len = c->link.rx.off = 0;
	c->guest_mac_known = c->gaddr6_known = false;
	c->gaddr6_ll_known = false;
	flow_guest_gone(c);
	return 0;
}
