// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - capture of guest frames in libpcap format
 *
 * The classic libpcap file format (not pcapng) is written by hand: it is a
 * 24-byte header and a 16-byte record header per frame, and pulling in
 * libpcap for that would add a dependency to every pod for a debug option.
 *
 * A capture started at run time (netshim-ctl capture, over the control
 * socket) goes into a ring sized at start-up, and from there to the
 * client's connection as fast as it reads, never blocking: a frame the
 * ring has no room for is left out whole, and counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "pcap.h"
#include "log.h"

#define PCAP_MAGIC		0xa1b2c3d4
#define PCAP_LINKTYPE_ETHERNET	1

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone;
	uint32_t sigfigs, snaplen, linktype;
};

struct pcap_rec_hdr {
	uint32_t sec, usec, caplen, len;
};

/**
 * struct pcap_live - a capture to a control client, through a ring
 * @buf:	the ring, sized at start-up
 * @size:	its size
 * @head:	first byte not yet sent
 * @len:	bytes in it
 * @fd:		the client's connection, -1 when no capture runs
 * @snaplen:	bytes of each frame kept
 * @frames:	frames captured
 * @dropped:	frames left out: no room in the ring
 */
static struct pcap_live {
	uint8_t *buf;
	size_t size;
	size_t head, len;
	int fd;
	uint32_t snaplen;
	uint64_t frames, dropped;
} pcap_live = { .fd = -1 };

/**
 * pcap_open() - create the capture file and write its header
 * @c:		execution context
 * @path:	file to create (truncated if it exists)
 *
 * Return: 0 on success, -1 on failure (logged)
 */
int pcap_open(struct ctx *c, const char *path)
{
	struct pcap_file_hdr h = {
		.magic = PCAP_MAGIC, .major = 2, .minor = 4,
		.snaplen = FRAME_MAX, .linktype = PCAP_LINKTYPE_ETHERNET,
	};

	c->pcap_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (c->pcap_fd < 0) {
		err("cannot create capture file %s: %m", path);
		return -1;
	}
	if (write(c->pcap_fd, &h, sizeof(h)) != sizeof(h)) {
		err("cannot write capture file %s: %m", path);
		close(c->pcap_fd);
		c->pcap_fd = -1;
		return -1;
	}
	info("capturing guest frames to %s", path);
	return 0;
}

/**
 * pcap_live_init() - make the ring of captures started at run time
 * @size:	its size
 *
 * Return: 0 on success, -1 if memory is short
 */
int pcap_live_init(size_t size)
{
	pcap_live.buf = malloc(size);
	if (!pcap_live.buf)
		return -1;
	pcap_live.size = size;
	return 0;
}

/**
 * pcap_live_put() - append bytes to the ring, whole or not at all
 * @iov:	the bytes
 * @n:		buffers in @iov
 *
 * Return: true if they fit
 */
static bool pcap_live_put(const struct iovec *iov, int n)
{
	size_t total = 0, tail;
	int i;

	for (i = 0; i < n; i++)
		total += iov[i].iov_len;
	if (total > pcap_live.size - pcap_live.len)
		return false;
	tail = (pcap_live.head + pcap_live.len) % pcap_live.size;
	for (i = 0; i < n; i++) {
		const uint8_t *p = iov[i].iov_base;
		size_t left = iov[i].iov_len;

		while (left) {
			size_t run = pcap_live.size - tail;

			if (run > left)
				run = left;
			memcpy(pcap_live.buf + tail, p, run);
			tail = (tail + run) % pcap_live.size;
			p += run;
			left -= run;
		}
	}
	pcap_live.len += total;
	return true;
}

/**
 * pcap_live_start() - start a capture to a control client
 * @c:		execution context: c->pcap_fd is set, so that the link
 *		captures (and builds no frame in the guest's buffers)
 * @fd:		the client's connection, non-blocking
 * @snaplen:	bytes of each frame kept, 0 for all
 *
 * Return: 0 on success, -1 with errno set: EBUSY if a capture runs
 *	   (this one, or --pcap's), ENOMEM without the ring
 */
int pcap_live_start(struct ctx *c, int fd, uint32_t snaplen)
{
	struct pcap_file_hdr h = {
		.magic = PCAP_MAGIC, .major = 2, .minor = 4,
		.linktype = PCAP_LINKTYPE_ETHERNET,
	};
	struct iovec iov = { &h, sizeof(h) };

	if (c->pcap_fd >= 0) {
		errno = EBUSY;
		return -1;
	}
	if (!pcap_live.buf) {
		errno = ENOMEM;
		return -1;
	}
	pcap_live.snaplen = snaplen && snaplen < FRAME_MAX ? snaplen :
			    FRAME_MAX;
	h.snaplen = pcap_live.snaplen;
	pcap_live.head = pcap_live.len = 0;
	pcap_live.frames = pcap_live.dropped = 0;
	pcap_live_put(&iov, 1);
	pcap_live.fd = c->pcap_fd = fd;
	info("capturing guest frames for a control client");
	return 0;
}

/**
 * pcap_live_flush() - send what the ring holds, as far as the client
 *		       takes it now
 * @c:		execution context
 *
 * Return: 0 if the ring is empty, 1 if bytes wait, -1 if the client is
 *	   gone (errno set)
 */
int pcap_live_flush(struct ctx *c)
{
	(void)c;
	while (pcap_live.len) {
		size_t run = pcap_live.size - pcap_live.head;
		ssize_t n;

		if (run > pcap_live.len)
			run = pcap_live.len;
		n = send(pcap_live.fd, pcap_live.buf + pcap_live.head, run,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 1 : -1;
		pcap_live.head = (pcap_live.head + (size_t)n) % pcap_live.size;
		pcap_live.len -= (size_t)n;
	}
	return 0;
}

/**
 * pcap_live_stop() - take no more frames into a capture to a control
 *		      client; what the ring holds may still be flushed
 * @c:		execution context
 * @frames:	set to the frames captured
 * @dropped:	set to those left out
 */
void pcap_live_stop(struct ctx *c, uint64_t *frames, uint64_t *dropped)
{
	*frames = pcap_live.frames;
	*dropped = pcap_live.dropped;
	if (pcap_live.fd < 0 || c->pcap_fd != pcap_live.fd)
		return;
	c->pcap_fd = -1;
	info("capture for a control client stopped: %llu frames, %llu "
	     "left out", (unsigned long long)*frames,
	     (unsigned long long)*dropped);
}

/**
 * pcap_live_end() - forget a capture to a control client, flushed or not
 *		     (its connection is about to close)
 * @c:		execution context
 */
void pcap_live_end(struct ctx *c)
{
	uint64_t frames, dropped;

	pcap_live_stop(c, &frames, &dropped);
	pcap_live.fd = -1;
	pcap_live.len = 0;
}

/**
 * pcap_live_fd() - the connection a capture runs to, or drains to
 *
 * Return: its descriptor, -1 for none
 */
int pcap_live_fd(void)
{
	return pcap_live.fd;
}

/**
 * pcap_frame() - append one frame to the capture
 * @c:		execution context
 * @frame:	Ethernet frame
 * @len:	its length
 */
void pcap_frame(struct ctx *c, const uint8_t *frame, size_t len)
{
	struct pcap_rec_hdr h;
	struct timespec ts;
	struct iovec iov[2];

	clock_gettime(CLOCK_REALTIME, &ts);
	h.sec = (uint32_t)ts.tv_sec;
	h.usec = (uint32_t)(ts.tv_nsec / 1000);
	/* A TSO frame can be longer than the snapshot length the file
	 * header promises: readers refuse longer records, so cut it
	 */
	h.len = (uint32_t)len;
	h.caplen = len > FRAME_MAX ? FRAME_MAX : (uint32_t)len;
	iov[0].iov_base = &h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = (void *)frame;
	iov[1].iov_len = h.caplen;
	if (pcap_live.fd >= 0 && c->pcap_fd == pcap_live.fd) {
		if (h.caplen > pcap_live.snaplen)
			iov[1].iov_len = h.caplen = pcap_live.snaplen;
		if (pcap_live_put(iov, 2)) {
			pcap_live.frames++;
		} else {
			pcap_live.dropped++;
			c->cnt.capture_dropped++;
		}
		return;
	}
	if (writev(c->pcap_fd, iov, 2) < 0)
		warn_rl(ts.tv_sec, "capture write failed: %m");
}
