/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - Internet checksums (RFC 1071)
 */
#ifndef NETSHIM_CHECKSUM_H
#define NETSHIM_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <netinet/in.h>

uint32_t csum_add(const void *buf, size_t len, uint32_t sum);
uint32_t csum_add_iov(const struct iovec *iov, size_t n, size_t len,
		     uint32_t sum);
uint16_t csum_fold(uint32_t sum);
uint16_t csum_ip4_header(const void *hdr, size_t len);
uint32_t csum_pseudo4(struct in_addr src, struct in_addr dst, uint8_t proto,
		      uint16_t len);
uint32_t csum_pseudo6(const struct in6_addr *src, const struct in6_addr *dst,
		      uint8_t proto, uint32_t len);
uint16_t csum_l4(uint32_t pseudo, const void *l4, size_t len);

#endif /* NETSHIM_CHECKSUM_H */
