// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - copies between scattered buffers and one
 *
 * Guest buffers come as descriptor chains, frames built in place as
 * several receive buffers: what is copied in or out of them goes through
 * these two, which stop at whichever side ends first.
 */
#include <stdint.h>
#include <string.h>

#include "iov.h"

/**
 * iov_to_buf() - copy from scattered buffers into one
 * @iov:	buffers
 * @n:		how many
 * @off:	bytes of them to skip first
 * @buf:	destination
 * @len:	most bytes to copy
 *
 * Return: bytes copied
 */
size_t iov_to_buf(const struct iovec *iov, unsigned int n, size_t off,
		  void *buf, size_t len)
{
	size_t done = 0;
	unsigned int i;

	for (i = 0; i < n && done < len; i++) {
		size_t l = iov[i].iov_len;

		if (off >= l) {
			off -= l;
			continue;
		}
		l -= off;
		if (l > len - done)
			l = len - done;
		memcpy((uint8_t *)buf + done, (uint8_t *)iov[i].iov_base + off,
		       l);
		done += l;
		off = 0;
	}
	return done;
}

/**
 * iov_from_buf() - copy one buffer into scattered ones
 * @iov:	buffers
 * @n:		how many
 * @off:	bytes of them to skip first
 * @buf:	source
 * @len:	most bytes to copy
 *
 * Return: bytes copied
 */
size_t iov_from_buf(const struct iovec *iov, unsigned int n, size_t off,
		    const void *buf, size_t len)
{
	size_t done = 0;
	unsigned int i;

	for (i = 0; i < n && done < len; i++) {
		size_t l = iov[i].iov_len;

		if (off >= l) {
			off -= l;
			continue;
		}
		l -= off;
		if (l > len - done)
			l = len - done;
		memcpy((uint8_t *)iov[i].iov_base + off,
		       (const uint8_t *)buf + done, l);
		done += l;
		off = 0;
	}
	return done;
}
