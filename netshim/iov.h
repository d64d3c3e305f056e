/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - copies between scattered buffers and one
 */
#ifndef NETSHIM_IOV_H
#define NETSHIM_IOV_H

#include <stddef.h>
#include <sys/uio.h>

size_t iov_to_buf(const struct iovec *iov, unsigned int n, size_t off,
		  void *buf, size_t len);
size_t iov_from_buf(const struct iovec *iov, unsigned int n, size_t off,
		    const void *buf, size_t len);

#endif /* NETSHIM_IOV_H */
