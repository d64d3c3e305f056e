// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - capture of guest frames in libpcap format
 *
 * The classic libpcap file format (not pcapng) is written by hand: it is a
 * 24-byte header and a 16-byte record header per frame, and pulling in
 * libpcap for that would add a dependency to every pod for a debug option.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
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
	if (writev(c->pcap_fd, iov, 2) < 0)
		warn_rl(ts.tv_sec, "capture write failed: %m");
}
