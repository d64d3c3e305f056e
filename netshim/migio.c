// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the byte stream of a device state transfer
 *
 * The front-end hands the back-end a pipe (vhost-user's
 * SET_DEVICE_STATE_FD): the source writes its state and closes it, the
 * destination reads until the end.  Both go through a fixed buffer, so a
 * transfer of any number of flows allocates nothing; integers are big
 * endian, whatever the machines.  Each wait on the pipe is bounded: a
 * front-end that stops reading or writing fails the transfer, not netshim.
 *
 * Over a UNIX socket (migio_init_sock(), an upgrade in place: netshim/
 * upgrade.c) descriptors travel too, as SCM_RIGHTS: each stands in the
 * byte stream as one byte, MIGIO_FD_MARK, at the place of the record it
 * belongs to, and goes with the write that carries that byte.  The
 * kernel hands a write's descriptors over with its first byte, so the
 * reader has them before it reaches their marks, and takes them in order.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "migio.h"
#include "unixsock.h"

/**
 * migio_init() - start a transfer over a pipe
 * @io:		stream
 * @fd:		the pipe, left open for the caller
 */
void migio_init(struct migio *io, int fd)
{
	io->fd = fd;
	io->len = io->off = 0;
	io->total = 0;
	io->err = 0;
	io->sock = false;
	io->nfds = io->fd_next = 0;
	io->nfds_total = 0;
}

/**
 * migio_init_sock() - start a transfer over a UNIX socket, descriptors and
 *		       all
 * @io:		stream
 * @fd:		the socket, left open for the caller
 */
void migio_init_sock(struct migio *io, int fd)
{
	migio_init(io, fd);
	io->sock = true;
}

/**
 * migio_send() - write bytes, with the descriptors queued if any
 * @io:		stream
 * @p:		bytes
 * @len:	how many, not 0
 *
 * Return: bytes written, -1 with errno set
 */
static ssize_t migio_send(struct migio *io, const uint8_t *p, size_t len)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * MIGIO_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { (void *)p, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;

	if (!io->sock)
		return write(io->fd, p, len);
	if (io->nfds) {
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * io->nfds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * io->nfds);
		memcpy(CMSG_DATA(cm), io->fds, sizeof(int) * io->nfds);
	}
	n = sendmsg(io->fd, &mh, MSG_NOSIGNAL);
	/* The descriptors went with the first byte */
	if (n > 0) {
		io->nfds_total += io->nfds;
		io->nfds = 0;
	}
	return n;
}
/**
 * migio_wait() - wait until the pipe can be read or written
 * @io:		stream
 * @events:	POLLIN or POLLOUT
 *
 * Return: 0 when it can, -1 with @io->err set if it did not in time
 */
static int migio_wait(struct migio *io, short events)
{
	struct pollfd p = { .fd = io->fd, .events = events };
	int n;

	do
		n = poll(&p, 1, MIGIO_WAIT_MS);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		return 0;
	io->err = n ? errno : ETIMEDOUT;
	return -1;
}

/**
 * migio_flush() - write out what is buffered
 * @io:		stream
 *
 * Return: 0 on success, -1 with @io->err set
 */
int migio_flush(struct migio *io)
{
	size_t done = 0;

	if (io->err)
		return -1;
	while (done < io->len) {
		ssize_t n = migio_send(io, io->buf + done, io->len - done);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			if (migio_wait(io, POLLOUT))
				return -1;
			continue;
		}
		io->err = n < 0 ? errno : EPIPE;
		return -1;
	}
	io->total += io->len;
	io->len = 0;
	return 0;
}

/**
 * migio_put() - append bytes to the stream
 * @io:		stream
 * @p:		bytes
 * @len:	how many
 *
 * Return: 0 on success, -1 with @io->err set
 */
int migio_put(struct migio *io, const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len) {
		size_t n = MIGIO_BUF - io->len;

		if (io->err)
			return -1;
		if (!n && migio_flush(io))
			return -1;
		n = MIGIO_BUF - io->len;
		n = n < len ? n : len;
		memcpy(io->buf + io->len, b, n);
		io->len += n;
		b += n;
		len -= n;
	}
	return io->err ? -1 : 0;
}

/**
 * migio_put_fd() - append a descriptor to the stream, as its mark
 * @io:		stream, over a UNIX socket
 * @fd:		the descriptor, still the caller's (the reader gets a copy)
 *
 * Its mark and the descriptor go in the same write: a full buffer, or
 * as many descriptors queued as a message carries, is written first.
 *
 * Return: 0 on success, -1 with @io->err set
 */
int migio_put_fd(struct migio *io, int fd)
{
	uint8_t mark = MIGIO_FD_MARK;

	if (!io->err && (!io->sock || fd < 0))
		io->err = EINVAL;
	if (io->err)
		return -1;
	if ((io->len == MIGIO_BUF || io->nfds == MIGIO_FDS) && migio_flush(io))
		return -1;
	io->fds[io->nfds++] = fd;
	return migio_put(io, &mark, 1);
}

int migio_put_u16(struct migio *io, uint16_t v)
{
	v = htobe16(v);
	return migio_put(io, &v, sizeof(v));
}

int migio_put_u32(struct migio *io, uint32_t v)
{
	v = htobe32(v);
	return migio_put(io, &v, sizeof(v));
}

int migio_put_u64(struct migio *io, uint64_t v)
{
	v = htobe64(v);
	return migio_put(io, &v, sizeof(v));
}

/**
 * migio_fill() - read more of the stream into the buffer
 * @io:		stream, its buffer read to the end
 *
 * Return: bytes read, 0 at the end of the stream, -1 with @io->err set
 */
/**
 * migio_recv() - read bytes, and the descriptors that come with them
 * @io:		stream
 *
 * A reader that took descriptors as announced has none left over when
 * the next ones come (migio_put_fd()): more than a message carries is a
 * writer that sent some without their marks.
 *
 * Return: bytes read into the buffer, -1 with errno set
 */
static ssize_t migio_recv(struct migio *io)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * MIGIO_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { io->buf, MIGIO_BUF };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	unsigned int before;
	ssize_t n;

	if (!io->sock)
		return read(io->fd, io->buf, MIGIO_BUF);
	n = recvmsg(io->fd, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return n;
	/* What is left at the front, then what came */
	memmove(io->fds, io->fds + io->fd_next,
		sizeof(int) * (io->nfds - io->fd_next));
	io->nfds -= io->fd_next;
	io->fd_next = 0;
	before = io->nfds;
	if (unix_fds_take(&mh, io->fds, &io->nfds, MIGIO_FDS))
		return -1;
	io->nfds_total += io->nfds - before;
	return n;
}

static ssize_t migio_fill(struct migio *io)
{
	for (;;) {
		ssize_t n = migio_recv(io);

		if (n >= 0) {
			io->len = (size_t)n;
			io->off = 0;
			io->total += (size_t)n;
			return n;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			if (migio_wait(io, POLLIN))
				return -1;
			continue;
		}
		io->err = errno;
		return -1;
	}
}

/**
 * migio_get() - take bytes from the stream
 * @io:		stream
 * @p:		where to, or NULL to skip them
 * @len:	how many
 *
 * Return: 0 on success, -1 with @io->err set (EPROTO if the stream ended
 * first)
 */
int migio_get(struct migio *io, void *p, size_t len)
{
	uint8_t *b = p;

	while (len) {
		size_t n;

		if (io->err)
			return -1;
		if (io->off == io->len) {
			ssize_t r = migio_fill(io);

			if (r < 0)
				return -1;
			if (!r) {
				io->err = EPROTO;
				return -1;
			}
		}
		n = io->len - io->off;
		n = n < len ? n : len;
		if (b) {
			memcpy(b, io->buf + io->off, n);
			b += n;
		}
		io->off += n;
		len -= n;
	}
	return 0;
}

/**
 * migio_get_fd() - take a descriptor at its mark in the stream
 * @io:		stream, over a UNIX socket
 * @fd:		set to the descriptor, now the caller's
 *
 * Return: 0 on success, -1 with @io->err set (EPROTO if the mark is not
 * there or its descriptor did not come)
 */
int migio_get_fd(struct migio *io, int *fd)
{
	uint8_t mark;

	*fd = -1;
	if (!io->err && !io->sock)
		io->err = EINVAL;
	if (migio_get(io, &mark, 1))
		return -1;
	if (mark != MIGIO_FD_MARK || io->fd_next == io->nfds) {
		io->err = EPROTO;
		return -1;
	}
	*fd = io->fds[io->fd_next++];
	return 0;
}

/**
 * migio_drop_fds() - close the descriptors received and not taken
 * @io:		stream being read
 */
void migio_drop_fds(struct migio *io)
{
	unsigned int i;

	for (i = io->fd_next; i < io->nfds; i++)
		close(io->fds[i]);
	io->nfds = io->fd_next = 0;
}

int migio_get_u16(struct migio *io, uint16_t *v)
{
	if (migio_get(io, v, sizeof(*v)))
		return -1;
	*v = be16toh(*v);
	return 0;
}

int migio_get_u32(struct migio *io, uint32_t *v)
{
	if (migio_get(io, v, sizeof(*v)))
		return -1;
	*v = be32toh(*v);
	return 0;
}

int migio_get_u64(struct migio *io, uint64_t *v)
{
	if (migio_get(io, v, sizeof(*v)))
		return -1;
	*v = be64toh(*v);
	return 0;
}

/**
 * migio_skip() - pass over bytes of the stream
 * @io:		stream
 * @len:	how many
 *
 * Return: 0 on success, -1 with @io->err set
 */
int migio_skip(struct migio *io, uint64_t len)
{
	while (len) {
		size_t n = len > MIGIO_BUF ? MIGIO_BUF : (size_t)len;

		if (migio_get(io, NULL, n))
			return -1;
		len -= n;
	}
	return 0;
}

/**
 * migio_at_end() - did the stream end right here
 * @io:		stream
 *
 * Return: true if nothing follows what was read
 */
bool migio_at_end(struct migio *io)
{
	if (io->err)
		return false;
	if (io->off < io->len)
		return false;
	return migio_fill(io) == 0;
}

/**
 * migio_now_us() - a monotonic clock, for the log's account of where the
 *		    time of a transfer goes: the loop's own clock stands
 *		    still while one runs
 *
 * Return: microseconds of CLOCK_MONOTONIC
 */
uint64_t migio_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}
