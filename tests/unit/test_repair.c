// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the repair helper's connection (netshim/repair.c)
 *
 * A helper that binds its end to an abstract name starting with
 * "netshim-repair/1/" takes the deaf and hear commands; passt-repair,
 * which binds nothing, and anything bound to another name is only sent
 * passt-repair's three commands.  A helper that connects replaces the one
 * connected, and a new one starts with nothing known of it.  A helper that
 * answers a command with another byte is dropped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "unit.h"
#include "netshim/ctx.h"
#include "netshim/repair.h"

static struct ctx ctx;
static char dir[] = "/tmp/netshim-unit-repair-XXXXXX";

static int setup(void **state)
{
	struct ctx *c = &ctx;

	(void)state;
	unit_conf(&c->conf);
	assert_non_null(mkdtemp(dir));
	snprintf(c->conf.repair_path, sizeof(c->conf.repair_path),
		 "%s/sock.repair", dir);
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	assert_true(c->epfd >= 0);
	assert_int_equal(repair_listen(c), 0);
	assert_true(c->repair.listen_fd >= 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	repair_done(&ctx);
	close(ctx.repair.listen_fd);
	unlink(ctx.conf.repair_path);
	rmdir(dir);
	return 0;
}

/* helper() - a helper's end, bound to the abstract name @name if not NULL,
 * connected and accepted
 */
static int helper(const char *name)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	if (name) {
		struct sockaddr_un n = { .sun_family = AF_UNIX };
		size_t l = strlen(name);

		memcpy(n.sun_path + 1, name, l);
		assert_int_equal(bind(s, (struct sockaddr *)&n,
				      (socklen_t)(offsetof(struct sockaddr_un,
							   sun_path) + 1 + l)),
				 0);
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", ctx.conf.repair_path);
	assert_int_equal(connect(s, (struct sockaddr *)&a, sizeof(a)), 0);
	repair_accept(&ctx);
	assert_true(ctx.repair.fd >= 0);
	return s;
}

/* take() - play the helper for one message: the command, and how many
 * descriptors came with it (closed)
 */
static int take(int s, int *nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * REPAIR_FDS_MAX)];
		struct cmsghdr align;
	} u;
	int8_t cmd;
	struct iovec iov = { &cmd, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	int i, fd;

	assert_int_equal(recvmsg(s, &msg, MSG_DONTWAIT), 1);
	cm = CMSG_FIRSTHDR(&msg);
	assert_non_null(cm);
	*nfds = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
	for (i = 0; i < *nfds; i++) {
		memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
		close(fd);
	}
	return cmd;
}

/* reply() - the helper's answer, sent ahead: netshim waits for it */
static void reply(int s, int8_t r)
{
	assert_int_equal(send(s, &r, 1, 0), 1);
}

/* passt-repair binds nothing: only its three commands */
static void test_plain(void **state)
{
	int s;

	(void)state;
	s = helper(NULL);
	assert_false(ctx.repair.ext);
	close(s);
	repair_done(&ctx);
}

/* A name that is not netshim-repair's says nothing */
static void test_other_name(void **state)
{
	int s;

	(void)state;
	s = helper("netshim-repai/1/1");
	assert_false(ctx.repair.ext);
	close(s);
	repair_done(&ctx);
	s = helper("netshim-repair/");
	assert_false(ctx.repair.ext);
	close(s);
	repair_done(&ctx);
}

/* netshim-repair's name: the deaf and hear commands go to it, batched
 * like the others, and a new helper replaces it, known from scratch
 */
static void test_ext(void **state)
{
	int s, t, fds[3], n, i;

	(void)state;
	s = helper("netshim-repair/1/4242");
	assert_true(ctx.repair.ext);
	for (i = 0; i < 3; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM, 0);
		assert_true(fds[i] >= 0);
	}
	/* One batch, sent on the flush */
	for (i = 0; i < 3; i++)
		assert_int_equal(repair_set(&ctx, fds[i], REPAIR_DEAF), 0);
	reply(s, REPAIR_DEAF);
	assert_int_equal(repair_flush(&ctx), 0);
	assert_int_equal(take(s, &n), REPAIR_DEAF);
	assert_int_equal(n, 3);
	/* A change of command sends the batch before it */
	reply(s, REPAIR_ON);
	reply(s, REPAIR_HEAR);
	assert_int_equal(repair_set(&ctx, fds[0], REPAIR_ON), 0);
	assert_int_equal(repair_set(&ctx, fds[1], REPAIR_HEAR), 0);
	assert_int_equal(take(s, &n), REPAIR_ON);
	assert_int_equal(n, 1);
	assert_int_equal(repair_flush(&ctx), 0);
	assert_int_equal(take(s, &n), REPAIR_HEAR);
	assert_int_equal(n, 1);
	/* A wrong answer drops the helper, and what it said of itself */
	assert_int_equal(repair_set(&ctx, fds[0], REPAIR_HEAR), 0);
	reply(s, REPAIR_ON);
	assert_int_equal(repair_flush(&ctx), -1);
	assert_int_equal(ctx.repair.fd, -1);
	assert_false(ctx.repair.ext);
	assert_int_equal(take(s, &n), REPAIR_HEAR);
	close(s);
	/* Two helpers: the second replaces the first, and is plain */
	s = helper("netshim-repair/1/1");
	assert_true(ctx.repair.ext);
	t = helper(NULL);
	assert_false(ctx.repair.ext);
	{
		char b;

		/* The first one was hung up on */
		assert_int_equal(recv(s, &b, 1, 0), 0);
	}
	close(s);
	close(t);
	repair_done(&ctx);
	for (i = 0; i < 3; i++)
		close(fds[i]);
}

/* Commands go out one after the other, the helper's replies read on the
 * flush, in order: a change of command does not wait for a reply (the
 * helper has not answered anything yet here), and replies out of order
 * drop the helper
 */
static void test_pipelined(void **state)
{
	int s, fds[2], n, i;

	(void)state;
	s = helper("netshim-repair/1/7");
	for (i = 0; i < 2; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM, 0);
		assert_true(fds[i] >= 0);
	}
	assert_int_equal(repair_set(&ctx, fds[0], REPAIR_ON), 0);
	assert_int_equal(repair_set(&ctx, fds[1], REPAIR_ON), 0);
	assert_int_equal(repair_set(&ctx, fds[0], REPAIR_DEAF), 0);
	assert_int_equal(repair_set(&ctx, fds[1], REPAIR_DEAF), 0);
	/* The first batch is out, unanswered; the second waits */
	assert_int_equal(take(s, &n), REPAIR_ON);
	assert_int_equal(n, 2);
	reply(s, REPAIR_ON);
	reply(s, REPAIR_DEAF);
	assert_int_equal(repair_flush(&ctx), 0);
	assert_int_equal(take(s, &n), REPAIR_DEAF);
	assert_int_equal(n, 2);
	/* Nothing left to answer: a flush reads nothing */
	assert_int_equal(repair_flush(&ctx), 0);

	/* Replies swapped */
	assert_int_equal(repair_set(&ctx, fds[0], REPAIR_HEAR), 0);
	assert_int_equal(repair_set(&ctx, fds[0], REPAIR_OFF_NO_WP), 0);
	reply(s, REPAIR_OFF_NO_WP);
	reply(s, REPAIR_HEAR);
	assert_int_equal(repair_flush(&ctx), -1);
	assert_int_equal(ctx.repair.fd, -1);
	close(s);
	for (i = 0; i < 2; i++)
		close(fds[i]);
}

/* The sockets of a command pushed may be read once the helper answered
 * that one, while it still works on the next: waiting for a mark reads
 * the replies up to it, no further (a wait for one more would time out)
 */
static void test_wait_for_mark(void **state)
{
	struct timeval tv = { .tv_usec = 200000 };
	uint64_t on, deaf;
	int s, fds[2], n, i;

	(void)state;
	s = helper("netshim-repair/1/8");
	assert_int_equal(setsockopt(ctx.repair.fd, SOL_SOCKET, SO_RCVTIMEO,
				    &tv, sizeof(tv)), 0);
	for (i = 0; i < 2; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM, 0);
		assert_true(fds[i] >= 0);
	}
	assert_int_equal(repair_set(&ctx, fds[0], REPAIR_ON), 0);
	assert_int_equal(repair_set(&ctx, fds[1], REPAIR_ON), 0);
	assert_int_equal(repair_push(&ctx, &on), 0);
	assert_int_equal(repair_set(&ctx, fds[0], REPAIR_DEAF), 0);
	assert_int_equal(repair_push(&ctx, &deaf), 0);
	assert_int_equal(deaf, on + 1);
	assert_int_equal(take(s, &n), REPAIR_ON);
	assert_int_equal(n, 2);
	assert_int_equal(take(s, &n), REPAIR_DEAF);
	assert_int_equal(n, 1);
	reply(s, REPAIR_ON);
	assert_int_equal(repair_wait_for(&ctx, on), 0);
	assert_int_equal(ctx.repair.nsent, 1);
	/* Waiting again for what was answered reads nothing */
	assert_int_equal(repair_wait_for(&ctx, on), 0);
	reply(s, REPAIR_DEAF);
	assert_int_equal(repair_wait_for(&ctx, deaf), 0);
	assert_int_equal(ctx.repair.nsent, 0);

	/* Nothing pushed since: the mark is where it was */
	assert_int_equal(repair_push(&ctx, &on), 0);
	assert_int_equal(on, deaf);
	/* A helper gone fails the push, and the wait after it */
	close(s);
	assert_int_equal(repair_set(&ctx, fds[0], REPAIR_OFF), 0);
	assert_int_equal(repair_push(&ctx, &on), -1);
	assert_int_equal(ctx.repair.fd, -1);
	assert_int_equal(repair_wait_for(&ctx, deaf), -1);
	for (i = 0; i < 2; i++)
		close(fds[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_other_name),
		cmocka_unit_test(test_ext),
		cmocka_unit_test(test_pipelined),
		cmocka_unit_test(test_wait_for_mark),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
