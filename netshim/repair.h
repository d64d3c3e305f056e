/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the TCP repair helper: passt-repair's protocol, either end
 */
#ifndef NETSHIM_REPAIR_H
#define NETSHIM_REPAIR_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/filter.h>
#include <sys/socket.h>

#define REPAIR_FDS_MAX		253	/* SCM_MAX_FD: descriptors a message carries */
#define REPAIR_SENT_MAX		4	/* commands sent before their replies are read */
#define REPAIR_WAIT_MS		10	/* for a helper to connect, the guest
					 * stopped: each ms is downtime */

/* passt-repair's commands: the values of TCP_REPAIR, one byte */
#define REPAIR_ON		1
#define REPAIR_OFF		0
#define REPAIR_OFF_NO_WP	(-1)
/* netshim-repair's own, sent only to a helper that said it has them
 * (bound to an abstract name starting with REPAIR_EXT_NAME): a socket
 * filter that drops every segment the peer sends, and off again
 */
#define REPAIR_DEAF		16
#define REPAIR_HEAR		17
#define REPAIR_EXT_NAME		"netshim-repair/1/"

/**
 * repair_sock_deaf() - make a TCP socket drop every segment that comes
 *			(a socket filter that passes nothing), or take it off
 * @fd:		the socket
 * @deaf:	drop, or take them again
 *
 * What REPAIR_DEAF and REPAIR_HEAR do in netshim-repair, and what netshim
 * tries itself where the kernel lets it (tcp/migrate.c).  Taking off a
 * filter that is not there succeeds.
 *
 * Return: 0 on success, -1 on failure (errno set)
 */
static inline int repair_sock_deaf(int fd, bool deaf)
{
	static struct sock_filter none = BPF_STMT(BPF_RET | BPF_K, 0);
	const struct sock_fprog prog = { 1, &none };
	int zero = 0;

	if (deaf)
		return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
				  sizeof(prog));
	if (setsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &zero,
		       sizeof(zero)) && errno != ENOENT)
		return -1;
	return 0;
}

struct ctx;

/**
 * struct repair - the helper's connection, and sockets waiting for it
 * @listen_fd:	socket the helper connects to, or -1
 * @fd:		the helper, or -1
 * @ext:	the helper takes REPAIR_DEAF and REPAIR_HEAR
 * @cmd:	command for the sockets in @fds
 * @fds:	sockets waiting for the command (repair_flush())
 * @n:		how many
 * @sent:	commands sent whose reply is not read yet, oldest first
 * @nsent:	how many
 * @issued:	commands sent since start (repair_push())
 */
struct repair {
	int listen_fd;
	int fd;
	bool ext;
	int8_t cmd;
	int fds[REPAIR_FDS_MAX];
	unsigned int n;
	int8_t sent[REPAIR_SENT_MAX];
	unsigned int nsent;
	uint64_t issued;
};

int repair_listen(struct ctx *c);
void repair_accept(struct ctx *c);
int repair_adopt(struct ctx *c, int fd, bool ext);
void repair_event(struct ctx *c);
void repair_done(struct ctx *c);
bool repair_wait(struct ctx *c);
int repair_set(struct ctx *c, int fd, int8_t cmd);
int repair_flush(struct ctx *c);
int repair_push(struct ctx *c, uint64_t *mark);
int repair_wait_for(struct ctx *c, uint64_t mark);

#endif /* NETSHIM_REPAIR_H */
