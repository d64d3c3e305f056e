// SPDX-License-Identifier: GPL-2.0-or-later
/* conns - many TCP connections from the test guest, every byte checked
 *
 *   conns HOST PORT N STOPFILE COUNTFILE [PERIOD_MS]
 *
 * Opens N connections to an echo server at HOST:PORT, then, round after
 * round until STOPFILE exists, writes one 16-byte line to each ("%6u
 * %8u\n": the connection's number and the round's) and reads each back,
 * checked.  A round starts PERIOD_MS after the last one started, or at
 * once if that one took longer (default 0: back to back).  After each
 * round the number of rounds done replaces COUNTFILE (written aside and
 * renamed, so that a reader never sees it half).  A connection that is
 * reset, ends, or answers something else is counted and closed; the
 * others go on.  At the end one line:
 *
 *   N open, R rounds, W wrong, E lost
 *
 * Built static by mkinitramfs.sh for the guest, which has no compiler.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#define LINE		16
#define WAIT_MS		30000	/* longer than any migration's downtime */

/* read_all() - read exactly @len bytes, waiting at most WAIT_MS for each */
static int read_all(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, WAIT_MS) <= 0)
			return -1;
		n = read(fd, buf + got, len - got);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* now_ms() - a monotonic clock in milliseconds */
static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* line() - connection @i's line of round @r, LINE bytes and a NUL */
static void line(char *out, size_t size, unsigned long i, unsigned long r)
{
	snprintf(out, size, "%6lu %8lu\n", i % 1000000, r % 100000000);
}

int main(int argc, char **argv)
{
	unsigned long n, i, open_n = 0, rounds = 0, wrong = 0, lost = 0;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	long long period = 0, start;
	struct rlimit rl;
	int *fd;

	if ((argc != 6 && argc != 7) ||
	    inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1) {
		fprintf(stderr, "usage: conns HOST PORT N STOPFILE COUNTFILE "
			"[PERIOD_MS]\n");
		return 2;
	}
	if (argc == 7)
		period = strtoll(argv[6], NULL, 10);
	sa.sin_port = htons((uint16_t)atoi(argv[2]));
	n = strtoul(argv[3], NULL, 10);
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_max > rl.rlim_cur) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	fd = calloc(n ? n : 1, sizeof(*fd));
	if (!fd)
		return 2;
	for (i = 0; i < n; i++) {
		fd[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (fd[i] < 0 ||
		    connect(fd[i], (struct sockaddr *)&sa, sizeof(sa))) {
			if (!lost)
				fprintf(stderr, "conns: connection %lu: %s\n",
					i, strerror(errno));
			if (fd[i] >= 0)
				close(fd[i]);
			fd[i] = -1;
			lost++;
			continue;
		}
		open_n++;
	}
	for (start = now_ms(); open_n && access(argv[4], F_OK);
	     start += period) {
		char out[64], in[LINE], tmp[4096];
		long long wait = start - now_ms();
		FILE *f;

		if (wait > 0)
			poll(NULL, 0, (int)wait);
		else
			start -= wait;	/* late: the next period from now */
		for (i = 0; i < n; i++) {
			if (fd[i] < 0)
				continue;
			line(out, sizeof(out), i, rounds);
			if (write(fd[i], out, LINE) != LINE) {
				close(fd[i]);
				fd[i] = -1;
				lost++;
			}
		}
		for (i = 0; i < n; i++) {
			if (fd[i] < 0)
				continue;
			line(out, sizeof(out), i, rounds);
			if (read_all(fd[i], in, LINE)) {
				close(fd[i]);
				fd[i] = -1;
				lost++;
			} else if (memcmp(in, out, LINE)) {
				wrong++;
			}
		}
		rounds++;
		/* Whole or not at all for a reader: written aside, renamed */
		snprintf(tmp, sizeof(tmp), "%s.tmp", argv[5]);
		f = fopen(tmp, "w");
		if (f) {
			fprintf(f, "%lu\n", rounds);
			if (!fclose(f))
				rename(tmp, argv[5]);
		}
		if (lost >= n)
			break;
	}
	printf("%lu open, %lu rounds, %lu wrong, %lu lost\n", open_n, rounds,
	       wrong, lost);
	return 0;
}
