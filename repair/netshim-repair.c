// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim-repair - the privileged end of TCP connection migration
 *
 *   netshim-repair PATH
 *
 * netshim (or passt) never holds CAP_NET_ADMIN, which TCP_REPAIR needs
 * to move a TCP connection to another host with the guest.  This helper,
 * run with it by the launcher for the time of a migration (as KubeVirt's
 * virt-handler runs passt-repair), connects to the back-end's repair
 * socket, PATH (or the first *.repair socket that appears in the
 * directory PATH) and speaks passt-repair's protocol: each message is one
 * byte, a TCP_REPAIR value (1 on, 0 off, -1 off without a window probe),
 * with up to 253 TCP sockets as SCM_RIGHTS; it sets the option on each
 * and echoes the byte.  It exits when the back-end closes the connection.
 *
 * For netshim it also makes sockets deaf (REPAIR_DEAF: a socket filter
 * that drops every segment, which recent kernels let only CAP_NET_ADMIN
 * put on a TCP socket) and hearing again (REPAIR_HEAR).  It says so by
 * the abstract name its socket is bound to (REPAIR_EXT_NAME, then its
 * pid), which netshim reads from accept() and passt ignores: nothing is
 * sent that passt would not expect, and passt never sends those commands.
 *
 * Once connected it can do nothing else: a seccomp filter allows only
 * receiving messages, setsockopt(SOL_TCP, TCP_REPAIR) and
 * setsockopt(SOL_SOCKET, SO_ATTACH_FILTER or SO_DETACH_FILTER), sending
 * the echo, closing descriptors and exiting.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "netshim/repair.h"

#define FDS_MAX		253	/* SCM_MAX_FD */
#define DIR_WAIT_S	60	/* for a back-end's socket to appear */

#if defined(__x86_64__)
#define ARCH_NR		AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH_NR		AUDIT_ARCH_AARCH64
#endif

/**
 * sandbox() - allow nothing but the repair protocol from now on
 *
 * Return: 0 on success, -1 on failure
 */
static int sandbox(void)
{
#ifdef ARCH_NR
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_NR, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_recvmsg, 14, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sendto, 13, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_close, 12, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 11, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 10, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_setsockopt, 0, 8),
		/* setsockopt(fd, SOL_TCP, TCP_REPAIR, ...) */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOL_TCP, 0, 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TCP_REPAIR, 5, 4),
		/* setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER or
		 * SO_DETACH_FILTER, ...)
		 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOL_SOCKET, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SO_ATTACH_FILTER, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SO_DETACH_FILTER, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]),
				   .filter = f };

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -1 : 0;
#else
	return 0;
#endif
}

/**
 * find_socket() - the first *.repair socket in a directory, waiting for one
 * @dir:	directory
 * @a:		its path filled in
 *
 * Return: 0 when found, -1 after DIR_WAIT_S seconds
 */
static int find_socket(const char *dir, struct sockaddr_un *a)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	int i;

	for (i = 0; i < DIR_WAIT_S * 10; i++) {
		struct dirent *d;
		DIR *dp = opendir(dir);

		while (dp && (d = readdir(dp))) {
			size_t l = strlen(d->d_name);
			struct stat st;

			if (l < 7 || strcmp(d->d_name + l - 7, ".repair"))
				continue;
			if (snprintf(a->sun_path, sizeof(a->sun_path), "%s/%s",
				     dir, d->d_name) >= (int)sizeof(a->sun_path))
				continue;
			if (!stat(a->sun_path, &st) && S_ISSOCK(st.st_mode)) {
				closedir(dp);
				return 0;
			}
		}
		if (dp)
			closedir(dp);
		nanosleep(&tick, NULL);
	}
	return -1;
}

/**
 * name() - bind the socket to the abstract name that tells netshim this
 *	    helper makes sockets deaf; without it (a name taken), it is
 *	    only passt-repair's equal
 * @s:		the socket, not connected yet
 */
static void name(int s)
{
	struct sockaddr_un n = { .sun_family = AF_UNIX };
	int l;

	l = snprintf(n.sun_path + 1, sizeof(n.sun_path) - 1, "%s%d",
		     REPAIR_EXT_NAME, (int)getpid());
	if (bind(s, (struct sockaddr *)&n,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			     (size_t)l)))
		fprintf(stderr, "netshim-repair: abstract name: %s: sockets "
			"handed over will not be made deaf\n", strerror(errno));
}

int main(int argc, char **argv)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * FDS_MAX)];
		struct cmsghdr align;
	} u;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	int s, i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH\n", argv[0]);
		return 2;
	}
	if (stat(argv[1], &st)) {
		fprintf(stderr, "netshim-repair: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	if (S_ISDIR(st.st_mode)) {
		if (find_socket(argv[1], &a)) {
			fprintf(stderr, "netshim-repair: no *.repair socket in "
				"%s after %d s\n", argv[1], DIR_WAIT_S);
			return 1;
		}
	} else if (snprintf(a.sun_path, sizeof(a.sun_path), "%s", argv[1]) >=
		   (int)sizeof(a.sun_path)) {
		fprintf(stderr, "netshim-repair: %s: path too long\n", argv[1]);
		return 2;
	}
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s >= 0)
		name(s);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "netshim-repair: %s: %s\n", a.sun_path,
			strerror(errno));
		return 1;
	}
	if (sandbox()) {
		fprintf(stderr, "netshim-repair: seccomp: %s\n",
			strerror(errno));
		return 1;
	}

	for (;;) {
		struct iovec iov;
		struct msghdr msg;
		struct cmsghdr *cm;
		int8_t cmd;
		int n, op;
		ssize_t r;

		iov = (struct iovec){ &cmd, 1 };
		msg = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1,
				       .msg_control = u.buf,
				       .msg_controllen = sizeof(u.buf) };
		r = recvmsg(s, &msg, MSG_CMSG_CLOEXEC);
		if (r == 0 || (r < 0 && errno == ECONNRESET))
			return 0;	/* the back-end is done */
		if (r < 0) {
			fprintf(stderr, "netshim-repair: %s\n", strerror(errno));
			return 1;
		}
		cm = CMSG_FIRSTHDR(&msg);
		if (!cm || cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS ||
		    cm->cmsg_len < CMSG_LEN(sizeof(int)) ||
		    (msg.msg_flags & MSG_CTRUNC)) {
			fprintf(stderr, "netshim-repair: a message without "
				"sockets\n");
			return 1;
		}
		n = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		if (cmd != TCP_REPAIR_ON && cmd != TCP_REPAIR_OFF &&
		    cmd != TCP_REPAIR_OFF_NO_WP && cmd != REPAIR_DEAF &&
		    cmd != REPAIR_HEAR) {
			fprintf(stderr, "netshim-repair: unknown command %d\n",
				cmd);
			return 1;
		}
		op = cmd;
		for (i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			if (cmd == REPAIR_DEAF || cmd == REPAIR_HEAR) {
				if (repair_sock_deaf(fd, cmd == REPAIR_DEAF)) {
					fprintf(stderr, "netshim-repair: socket "
						"filter: %s\n", strerror(errno));
					return 1;
				}
			} else if (setsockopt(fd, SOL_TCP, TCP_REPAIR, &op,
					      sizeof(op))) {
				fprintf(stderr, "netshim-repair: TCP_REPAIR "
					"%d: %s\n", op, strerror(errno));
				return 1;
			}
			close(fd);
		}
		if (send(s, &cmd, 1, MSG_NOSIGNAL) != 1) {
			fprintf(stderr, "netshim-repair: %s\n", strerror(errno));
			return 1;
		}
	}
}
