// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - fuzz target: vhost-user messages, vu_msg_parse() and vu_handle()
 *
 * The input is what a front-end writes on the socket: messages one after
 * the other.  Each message gets the descriptors its request would carry
 * (an eventfd for SET_VRING_KICK/CALL/ERR, one memfd per claimed region
 * for SET_MEM_TABLE, the memfd for ADD_MEM_REG and REM_MEM_REG unless bit
 * 0 of their padding field is set, so that the missing descriptor and the
 * one the spec tolerates on a removal are both tried), so the handler's
 * mapping and closing paths run too.
 * Besides the sanitizers, the harness checks that a reply fits its buffer
 * and has the reply flag, and that no descriptor leaks: after the device
 * is reset the next free descriptor number is the one it was before.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include "common.h"
#include "vhost_user/dev.h"

#define GUEST_MEM	(1 << 20)

static int memfd = -1;

/**
 * next_fd() - the descriptor number open() gives next
 *
 * Return: that number
 */
static int next_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	FUZZ_CHECK(fd >= 0);
	close(fd);
	return fd;
}

/**
 * LLVMFuzzerInitialize() - one memfd standing for the guest's memory
 * @argc:	libFuzzer's arguments, unused
 * @argv:	libFuzzer's arguments, unused
 *
 * Return: 0
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfd = memfd_create("guest", MFD_CLOEXEC);
	FUZZ_CHECK(memfd >= 0 && !ftruncate(memfd, GUEST_MEM));
	return 0;
}

/**
 * attach_fds() - give a message the descriptors a front-end would send
 * @m:		message
 */
static void attach_fds(struct vu_msg *m)
{
	unsigned int i, n = 0;

	switch (m->request) {
	case VU_SET_VRING_KICK:
	case VU_SET_VRING_CALL:
	case VU_SET_VRING_ERR:
		if (!(m->payload.u64 & VU_VRING_NOFD)) {
			m->fds[0] = eventfd(0, EFD_CLOEXEC);
			FUZZ_CHECK(m->fds[0] >= 0);
			m->nfds = 1;
		}
		return;
	case VU_SET_MEM_TABLE:
		memcpy(&n, m->payload.b, 4);
		break;
	case VU_ADD_MEM_REG:
	case VU_REM_MEM_REG:
		n = !(m->payload.b[0] & 1);
		break;
	default:
		return;
	}
	if (n > VU_FDS_MAX)
		n = VU_FDS_MAX;
	for (i = 0; i < n; i++) {
		m->fds[i] = dup(memfd);
		FUZZ_CHECK(m->fds[i] >= 0);
	}
	m->nfds = n;
}

/**
 * LLVMFuzzerTestOneInput() - one front-end's messages
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[VU_HDR_LEN + VU_PAYLOAD_MAX];
	static struct vu_dev d;
	static struct vu_msg m;
	int before = next_fd();
	size_t off = 0;

	vu_dev_init(&d, vu_features_offered(true));
	while (off < size) {
		long need = vu_msg_need(data + off, size - off);
		enum vu_result r;
		size_t n;

		if (need < 0 || (size_t)need > size - off)
			break;
		memset(&m, 0, sizeof(m));
		if (!vu_msg_parse(data + off, (size_t)need, &m))
			break;
		off += (size_t)need;
		attach_fds(&m);
		r = vu_handle(&d, &m);
		FUZZ_CHECK(m.nfds == 0);
		if (r == VU_DROP)
			break;
		if (r != VU_REPLY)
			continue;
		FUZZ_CHECK(m.flags == (VU_VERSION | VU_FLAG_REPLY));
		n = vu_msg_encode(&m, out, sizeof(out));
		FUZZ_CHECK(n == VU_HDR_LEN + m.size);
	}
	vu_dev_reset(&d);
	FUZZ_CHECK(next_fd() == before);
	return 0;
}
