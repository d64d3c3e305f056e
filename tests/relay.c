// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relay - join a tap device to a QEMU "-netdev stream" socket
 *
 * Usage: relay [--mtu N] [--loss PCT] [--listen] TAPNAME SOCKETPATH
 *
 * Runs inside the test's guest network namespace: the namespace's own kernel
 * stack plays the guest, and its tap device is wired to the backend's UNIX
 * stream socket exactly as QEMU would do it (32-bit big-endian length, then
 * the Ethernet frame).  The relay must not be the bottleneck of throughput
 * tests, so both directions are batched: many tap frames go out with one
 * send(), and the socket is read in large chunks that are split into frames.
 * Nothing is dropped on a short write: the unsent tail stays queued and the
 * producing side is paused until the consuming side can take more.
 *
 * --loss PCT (a per cent, 0.1 say) loses that share of the guest's frames
 * on their way to the backend, at random (xorshift, a fixed seed), while
 * SIGUSR2 has switched it on; the next SIGUSR2 switches it off and prints
 * how many were lost.  The loss must be here: a frame dropped in the
 * guest's own stack (nftables' egress hook, a qdisc) is an error the
 * guest's TCP sees and sends again at once, never a hole the backend has
 * to answer.
 *
 * --listen stands for QEMU's "-netdev stream,server=on": the relay
 * listens at SOCKETPATH (a file left there is removed first, as QEMU
 * does) and the back-end connects to it (netshim --connect).  When the
 * back-end hangs up, the relay accepts the next connection, as QEMU
 * does, and drops what the guest sends meanwhile, as a NIC whose link
 * is down would.  Each connection accepted is said on stderr
 * ("relay: connection N accepted"), so a test can count them.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define RELAY_MTU_DEFAULT	1500
#define RELAY_MTU_MAX		65520
#define RELAY_FRAME_MAX		(128 * 1024)	/* accepted from the socket */
#define RELAY_TAP_READ		(64 * 1024)	/* > max MTU + Ethernet */
#define RELAY_BUF_SIZE		(1024 * 1024)
#define RELAY_SOCK_BUF		(4 * 1024 * 1024)
#define RELAY_TAP_BATCH		128
#define RELAY_TXQLEN		5000
#define RELAY_CONNECT_MS	5000
#define RELAY_RETRY_MS		20
#define RELAY_BACKLOG		4

/**
 * struct relay_buf - bytes queued from one side to the other
 * @data:	storage of @size bytes
 * @off:	first byte not yet consumed
 * @len:	end of the bytes produced so far
 * @size:	capacity of @data
 * @blocked:	the consumer returned EAGAIN: wait for POLLOUT
 */
struct relay_buf {
	uint8_t *data;
	size_t off;
	size_t len;
	size_t size;
	int blocked;
};

/**
 * struct relay - the two ends and the queues between them
 * @tap:	tap device file descriptor
 * @sock:	connected UNIX stream socket
 * @to_sock:	length-prefixed frames read from the tap, waiting for send()
 * @to_tap:	stream bytes read from the socket, waiting to be split
 * @eof:	the backend closed the socket
 * @listen_fd:	--listen: the socket the backend connects to, else -1
 * @accepted:	--listen: connections accepted so far
 */
struct relay {
	int tap;
	int sock;
	struct relay_buf to_sock;
	struct relay_buf to_tap;
	int eof;
	int listen_fd;
	unsigned long accepted;
};

static volatile sig_atomic_t relay_stop;

/**
 * on_signal() - ask the main loop to finish
 * @sig:	signal number (unused)
 */
static void on_signal(int sig)
{
	(void)sig;
	relay_stop = 1;
}

/* --loss: the share of the guest's frames lost while SIGUSR2 says so, in
 * thousandths of a per cent
 */
static unsigned int loss_pcm;
static volatile sig_atomic_t loss_on;
static unsigned long loss_n;

/**
 * on_loss() - SIGUSR2: switch the loss on, or off
 * @sig:	unused
 */
static void on_loss(int sig)
{
	(void)sig;
	loss_on = !loss_on;
}

/**
 * lose() - tell if the frame just read from the tap is to be lost
 *
 * Return: true for --loss's share of frames while the loss is on
 */
static bool lose(void)
{
	static uint64_t x = 0x9e3779b97f4a7c15ULL;

	if (!loss_on || !loss_pcm)
		return false;
	x ^= x << 13;		/* xorshift64 */
	x ^= x >> 7;
	x ^= x << 17;
	if (x % 100000 >= loss_pcm)
		return false;
	loss_n++;
	return true;
}

/**
 * usage() - print the command line synopsis and exit
 * @name:	program name
 */
static void usage(const char *name)
{
	fprintf(stderr, "usage: %s [--mtu N] [--loss PCT] [--listen] TAPNAME "
		"SOCKETPATH\n", name);
	exit(2);
}

/**
 * die() - report a fatal error with the cause in errno and exit
 * @what:	what failed
 */
static void die(const char *what)
{
	fprintf(stderr, "relay: %s: %s\n", what, strerror(errno));
	exit(1);
}

/**
 * parse_args() - read the command line
 * @argc:	argument count
 * @argv:	arguments
 * @mtu:	set to the requested MTU
 * @server:	set if the relay listens (--listen) instead of connecting
 * @tap:	set to the tap device name
 * @path:	set to the socket path
 */
static void parse_args(int argc, char **argv, int *mtu, bool *server,
		       const char **tap, const char **path)
{
	int i = 1;
	char *end;

	*mtu = RELAY_MTU_DEFAULT;
	*server = false;
	while (i + 1 < argc && !strncmp(argv[i], "--", 2)) {
		long v = strtol(argv[i + 1], &end, 10);
		double pct;

		if (!strcmp(argv[i], "--listen")) {
			*server = true;
			i++;
			continue;
		}
		if (!strcmp(argv[i], "--mtu")) {
			if (*end || v < 68 || v > RELAY_MTU_MAX) {
				fprintf(stderr, "relay: MTU must be 68..%d\n",
					RELAY_MTU_MAX);
				exit(2);
			}
			*mtu = (int)v;
		} else if (!strcmp(argv[i], "--loss")) {
			pct = strtod(argv[i + 1], &end);
			if (*end || !(pct >= 0 && pct <= 50)) {
				fprintf(stderr,
					"relay: --loss must be 0..50 (%%)\n");
				exit(2);
			}
			loss_pcm = (unsigned int)(pct * 1000 + 0.5);
		} else {
			usage(argv[0]);
		}
		i += 2;
	}
	if (argc - i != 2 || strlen(argv[i]) >= IFNAMSIZ)
		usage(argv[0]);
	*tap = argv[i];
	*path = argv[i + 1];
}

/**
 * tap_open() - create a nonblocking tap device without packet information
 * @name:	interface name
 *
 * Return: file descriptor; exits on failure
 */
static int tap_open(const char *name)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	int fd;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		die("open /dev/net/tun");
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0)
		die("TUNSETIFF");
	return fd;
}

/**
 * if_configure() - set MTU and queue length of an interface, bring it up
 * @name:	interface name
 * @mtu:	MTU to set
 *
 * A longer transmit queue than the default keeps bursts of the guest's
 * stack from being dropped while the relay is busy with the other side.
 */
static void if_configure(const char *name, int mtu)
{
	struct ifreq ifr = { 0 };
	int s;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		die("socket");
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	ifr.ifr_mtu = mtu;
	if (ioctl(s, SIOCSIFMTU, &ifr) < 0)
		die("SIOCSIFMTU");
	ifr.ifr_qlen = RELAY_TXQLEN;
	if (ioctl(s, SIOCSIFTXQLEN, &ifr) < 0)
		die("SIOCSIFTXQLEN");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		die("SIOCGIFFLAGS");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		die("SIOCSIFFLAGS");
	close(s);
}

/**
 * sleep_ms() - sleep for a number of milliseconds
 * @ms:		duration
 */
static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/**
 * sock_tune() - make a connected socket ready for the loop
 * @s:		the socket
 */
static void sock_tune(int s)
{
	int buf = RELAY_SOCK_BUF;

	/* Best effort: larger buffers mean fewer wakeups, not correctness */
	if (setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)))
		setsockopt(s, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		setsockopt(s, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (fcntl(s, F_SETFL, O_NONBLOCK) < 0)
		die("fcntl");
}

/**
 * sock_connect() - connect to the backend, waiting for it to listen
 * @path:	UNIX socket path
 *
 * The backend may still be starting: retry for RELAY_CONNECT_MS while the
 * path is missing or nobody accepts yet.
 *
 * Return: connected nonblocking socket; exits on failure
 */
static int sock_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s, waited = 0;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "relay: socket path too long\n");
		exit(2);
	}
	strcpy(sa.sun_path, path);
	for (;;) {
		s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			die("socket");
		if (!connect(s, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		if ((errno != ENOENT && errno != ECONNREFUSED) ||
		    waited >= RELAY_CONNECT_MS)
			die(path);
		close(s);
		sleep_ms(RELAY_RETRY_MS);
		waited += RELAY_RETRY_MS;
	}
	sock_tune(s);
	return s;
}

/**
 * sock_listen() - listen at a path for the backend to connect (--listen)
 * @path:	UNIX socket path
 *
 * A socket file left by a relay that went before is removed first, as
 * QEMU's server=on does: a VMM started again listens where it did.
 *
 * Return: nonblocking listening socket; exits on failure
 */
static int sock_listen(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "relay: socket path too long\n");
		exit(2);
	}
	strcpy(sa.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		die("socket");
	if (unlink(path) && errno != ENOENT)
		die(path);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(s, RELAY_BACKLOG))
		die(path);
	return s;
}

/**
 * buf_init() - allocate an empty queue
 * @b:		queue
 */
static void buf_init(struct relay_buf *b)
{
	b->size = RELAY_BUF_SIZE;
	b->data = malloc(b->size);
	if (!b->data)
		die("malloc");
	b->off = b->len = 0;
	b->blocked = 0;
}

/**
 * buf_compact() - move unconsumed bytes to the start of the queue
 * @b:		queue
 */
static void buf_compact(struct relay_buf *b)
{
	if (!b->off)
		return;
	memmove(b->data, b->data + b->off, b->len - b->off);
	b->len -= b->off;
	b->off = 0;
}

/**
 * tap_room() - whether one more tap frame fits in the socket queue
 * @b:		queue towards the socket
 *
 * Return: non-zero if a full-size frame and its length prefix fit
 */
static int tap_room(struct relay_buf *b)
{
	if (b->size - b->len < 4 + RELAY_TAP_READ)
		buf_compact(b);
	return b->size - b->len >= 4 + RELAY_TAP_READ;
}

/**
 * put_be32() - store a 32-bit value in network byte order
 * @p:		destination, any alignment
 * @v:		value
 */
static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/**
 * get_be32() - load a 32-bit value in network byte order
 * @p:		source, any alignment
 *
 * Return: the value
 */
static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/**
 * tap_read_frames() - queue a batch of tap frames with length prefixes
 * @r:		relay
 *
 * Frames are read straight behind their prefix slot, so queuing costs no
 * copy; the batch ends when the tap is empty or the queue is full.
 */
static void tap_read_frames(struct relay *r)
{
	struct relay_buf *b = &r->to_sock;
	ssize_t n;
	int i;

	for (i = 0; i < RELAY_TAP_BATCH && tap_room(b); i++) {
		n = read(r->tap, b->data + b->len + 4, RELAY_TAP_READ);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			die("read tap");
		}
		if (!n)
			return;
		if (lose())
			continue;
		put_be32(b->data + b->len, (uint32_t)n);
		b->len += 4 + n;
	}
}

/**
 * sock_flush() - send queued frames to the backend
 * @r:		relay
 *
 * Return: 0, or -1 if the backend went away
 */
static int sock_flush(struct relay *r)
{
	struct relay_buf *b = &r->to_sock;
	ssize_t n;

	b->blocked = 0;
	while (b->off < b->len) {
		n = send(r->sock, b->data + b->off, b->len - b->off,
			 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				b->blocked = 1;
				return 0;
			}
			if (errno == EPIPE || errno == ECONNRESET)
				return -1;
			die("send");
		}
		b->off += n;
	}
	b->off = b->len = 0;
	return 0;
}

/**
 * sock_read() - read a chunk of the backend's stream
 * @r:		relay
 *
 * Sets @r->eof when the backend closes the connection.
 */
static void sock_read(struct relay *r)
{
	struct relay_buf *b = &r->to_tap;
	ssize_t n;

	buf_compact(b);
	n = recv(r->sock, b->data + b->len, b->size - b->len, 0);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		if (errno == ECONNRESET) {
			r->eof = 1;
			return;
		}
		die("recv");
	}
	if (!n)
		r->eof = 1;
	b->len += n;
}

/**
 * tap_write_frames() - write every complete queued frame to the tap
 * @r:		relay
 *
 * A frame the tap refuses (malformed, device down) is dropped, as a
 * NIC would; only EAGAIN keeps it queued for the next POLLOUT.
 */
static void tap_write_frames(struct relay *r)
{
	struct relay_buf *b = &r->to_tap;
	uint32_t flen;

	b->blocked = 0;
	while (b->len - b->off >= 4) {
		flen = get_be32(b->data + b->off);
		if (flen > RELAY_FRAME_MAX) {
			fprintf(stderr, "relay: backend sent a %u byte frame\n",
				flen);
			exit(1);
		}
		if (b->len - b->off - 4 < flen)
			break;
		if (flen && write(r->tap, b->data + b->off + 4, flen) < 0) {
			if (errno == EAGAIN) {
				b->blocked = 1;
				return;
			}
			if (errno == EINTR)
				continue;
		}
		b->off += 4 + flen;
	}
	if (b->off == b->len)
		b->off = b->len = 0;
}

/**
 * relay_poll() - wait until either side can make progress
 * @r:		relay
 * @fds:	two pollfd entries: tap, socket
 * @mask:	signal mask to use while waiting
 *
 * Each producer is polled only while its queue has room and the queue's
 * consumer is not backed up, so a slow side throttles the other.
 *
 * Return: poll() result
 */
static int relay_poll(struct relay *r, struct pollfd *fds,
		      const sigset_t *mask)
{
	fds[0].fd = r->tap;
	fds[0].events = 0;
	fds[1].fd = r->sock;
	fds[1].events = 0;
	if (!r->to_sock.blocked && tap_room(&r->to_sock))
		fds[0].events |= POLLIN;
	if (r->to_sock.blocked)
		fds[1].events |= POLLOUT;
	if (!r->to_tap.blocked)
		fds[1].events |= POLLIN;
	if (r->to_tap.blocked)
		fds[0].events |= POLLOUT;
	return ppoll(fds, 2, NULL, mask);
}

/**
 * relay_run() - move frames both ways until the socket closes or a signal
 * @r:		relay
 * @mask:	signal mask to use while waiting
 */
static void relay_run(struct relay *r, const sigset_t *mask)
{
	struct pollfd fds[2];
	bool was_on = false;

	while (!relay_stop && !r->eof) {
		if (was_on && !loss_on)
			fprintf(stderr, "relay: lost %lu frames of the guest\n",
				loss_n);
		was_on = loss_on;
		if (relay_poll(r, fds, mask) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (fds[0].revents & POLLOUT)
			tap_write_frames(r);
		if (fds[1].revents & (POLLIN | POLLHUP | POLLERR) &&
		    !r->to_tap.blocked) {
			sock_read(r);
			tap_write_frames(r);
		}
		if (fds[0].revents & POLLIN)
			tap_read_frames(r);
		if ((fds[0].revents & POLLIN || fds[1].revents & POLLOUT) &&
		    sock_flush(r))
			return;
	}
}

/**
 * tap_discard() - drop what the guest sends while no backend is connected
 * @r:		relay, not connected: its queue towards the socket is empty,
 *		and serves as scratch
 */
static void tap_discard(struct relay *r)
{
	int i;

	for (i = 0; i < RELAY_TAP_BATCH; i++)
		if (read(r->tap, r->to_sock.data, RELAY_TAP_READ) <= 0)
			return;
}

/**
 * relay_accept() - wait for the backend to connect (--listen)
 * @r:		relay, not connected
 * @mask:	signal mask to use while waiting
 *
 * Return: 0 once connected, -1 if a signal asked the relay to finish
 */
static int relay_accept(struct relay *r, const sigset_t *mask)
{
	struct pollfd fds[2] = { { .fd = r->listen_fd, .events = POLLIN },
				 { .fd = r->tap, .events = POLLIN } };
	int s;

	while (!relay_stop) {
		if (ppoll(fds, 2, NULL, mask) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (fds[1].revents & POLLIN)
			tap_discard(r);
		if (!(fds[0].revents & POLLIN))
			continue;
		s = accept4(r->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (s < 0) {
			if (errno == EAGAIN || errno == EINTR ||
			    errno == ECONNABORTED)
				continue;
			die("accept");
		}
		sock_tune(s);
		r->sock = s;
		r->eof = 0;
		r->accepted++;
		fprintf(stderr, "relay: connection %lu accepted\n",
			r->accepted);
		return 0;
	}
	return -1;
}

/**
 * relay_hangup() - forget a backend that went away (--listen)
 * @r:		relay
 *
 * What was queued either way belonged to that connection: half a frame
 * of it must not start the next one.
 */
static void relay_hangup(struct relay *r)
{
	close(r->sock);
	r->sock = -1;
	r->to_sock.off = r->to_sock.len = 0;
	r->to_sock.blocked = 0;
	r->to_tap.off = r->to_tap.len = 0;
	r->to_tap.blocked = 0;
	if (!relay_stop)
		fprintf(stderr, "relay: the backend hung up\n");
}

/**
 * signals_setup() - route SIGTERM, SIGINT and SIGUSR2 to the main loop
 * @wait_mask:	set to the mask that lets them in during ppoll()
 *
 * They stay blocked outside ppoll() so a signal cannot slip in between the
 * check of relay_stop and the wait.
 */
static void signals_setup(sigset_t *wait_mask)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_loss;
	sigaction(SIGUSR2, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, wait_mask);
	sigdelset(wait_mask, SIGTERM);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGUSR2);
}

/**
 * main() - set up the tap and the socket, then relay
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: 0 when the backend closed the socket or on SIGTERM
 */
int main(int argc, char **argv)
{
	struct relay r = { .sock = -1, .listen_fd = -1 };
	const char *tap, *path;
	sigset_t wait_mask;
	bool server;
	int mtu;

	parse_args(argc, argv, &mtu, &server, &tap, &path);
	r.tap = tap_open(tap);
	buf_init(&r.to_sock);
	buf_init(&r.to_tap);
	if (!server) {
		r.sock = sock_connect(path);
		/* Up only once connected: "tap0 is up" tells the backend is
		 * there
		 */
		if_configure(tap, mtu);
		signals_setup(&wait_mask);
		relay_run(&r, &wait_mask);
		return 0;
	}
	r.listen_fd = sock_listen(path);
	signals_setup(&wait_mask);
	while (!relay_accept(&r, &wait_mask)) {
		/* As without --listen: up once a backend first connected */
		if (r.accepted == 1)
			if_configure(tap, mtu);
		relay_run(&r, &wait_mask);
		relay_hangup(&r);
	}
	return 0;
}
