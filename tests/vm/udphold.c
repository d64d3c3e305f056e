// SPDX-License-Identifier: GPL-2.0-or-later
/* udphold - keep a server's datagrams unread in the guest, then check them
 *
 *   udphold ADDRESS PORT DRAINFILE
 *
 * Sends one datagram from PORT to ADDRESS:PORT, then reads nothing until
 * DRAINFILE exists: the server's answers, large datagrams of a pattern
 * that their first four bytes (a count, big endian) decide, stay in the
 * socket's receive queue, in the very receive buffers the back-end wrote
 * them to.  Then it reads them all and prints one line:
 *   "N datagrams, B wrong, first F, last L"
 *
 * This is where a live migration's dirty log matters: a datagram larger
 * than one receive buffer lies mostly in buffers only the back-end wrote
 * (the guest writes into the first one itself), and stays there until
 * read.  One written during the memory copy and not marked in the log
 * reaches the destination as the buffer was before: wrong bytes here.
 *
 * Built static by mkinitramfs.sh for the guest, which has no compiler.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define DGRAM_MAX	65536

/* pattern() - byte I of datagram N, after its four-byte count */
static uint8_t pattern(uint32_t n, size_t i)
{
	return (uint8_t)(n * 131 + i * 7 + (i >> 8));
}

int main(int argc, char **argv)
{
	static uint8_t buf[DGRAM_MAX];
	uint32_t n, first = 0, last = 0, got = 0, bad = 0;
	struct sockaddr_in a = { .sin_family = AF_INET };
	int s, rcvbuf = 64 << 20;
	ssize_t len;
	size_t i;

	if (argc != 4) {
		fprintf(stderr, "usage: udphold ADDRESS PORT DRAINFILE\n");
		return 2;
	}
	a.sin_port = htons((uint16_t)atoi(argv[2]));
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || inet_pton(AF_INET, argv[1], &a.sin_addr) != 1) {
		fprintf(stderr, "udphold: bad address or no socket\n");
		return 1;
	}
	/* Room for every datagram until the drain: root may exceed rmem_max */
	if (setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		perror("udphold: SO_RCVBUFFORCE");
	{
		struct sockaddr_in me = { .sin_family = AF_INET,
					  .sin_port = a.sin_port };

		if (bind(s, (struct sockaddr *)&me, sizeof(me)) ||
		    connect(s, (struct sockaddr *)&a, sizeof(a)) ||
		    send(s, "hold", 4, 0) != 4) {
			perror("udphold");
			return 1;
		}
	}
	while (access(argv[3], F_OK))
		usleep(100000);
	while ((len = recv(s, buf, sizeof(buf), MSG_DONTWAIT)) >= 0) {
		if (len < 4) {
			bad++;
			continue;
		}
		n = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 |
		    (uint32_t)buf[2] << 8 | buf[3];
		for (i = 4; i < (size_t)len; i++)
			if (buf[i] != pattern(n, i))
				break;
		if (i < (size_t)len)
			bad++;
		if (!got++)
			first = n;
		last = n;
	}
	printf("%u datagrams, %u wrong, first %u, last %u\n", got, bad, first,
	       last);
	return 0;
}
