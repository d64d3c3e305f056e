/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the byte stream of a device state transfer
 */
#ifndef NETSHIM_MIGIO_H
#define NETSHIM_MIGIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MIGIO_BUF	16384	/* bytes buffered each way: the stream is
				 * written and read through this, whatever
				 * the number of flows */
#define MIGIO_WAIT_MS	10000	/* the longest the other end may stall */
#define MIGIO_FDS	253	/* descriptors one message carries at most:
				 * the kernel's SCM_MAX_FD */
#define MIGIO_FD_MARK	0xfd	/* the byte standing for a descriptor */

/**
 * struct migio - one direction of a transfer over a pipe
 * @fd:		the pipe, blocking or not
 * @buf:	bytes buffered
 * @len:	bytes in @buf
 * @off:	bytes of @buf already read (input)
 * @total:	bytes moved so far, for the log
 * @err:	first error (positive errno), then every call fails; EPROTO
 *		for a stream that ends early
 * @sock:	@fd is a UNIX socket: descriptors may travel with the bytes
 *		(migio_put_fd(), migio_get_fd())
 * @fds:	descriptors to send with the next write, or received and not
 *		taken yet
 * @nfds:	how many
 * @fd_next:	input: the next of them to take
 * @nfds_total:	descriptors moved so far, for the log
 */
struct migio {
	int fd;
	uint8_t buf[MIGIO_BUF];
	size_t len, off;
	uint64_t total;
	int err;
	bool sock;
	int fds[MIGIO_FDS];
	unsigned int nfds, fd_next;
	uint64_t nfds_total;
};

void migio_init(struct migio *io, int fd);
void migio_init_sock(struct migio *io, int fd);
int migio_put_fd(struct migio *io, int fd);
int migio_get_fd(struct migio *io, int *fd);
void migio_drop_fds(struct migio *io);
int migio_put(struct migio *io, const void *p, size_t len);
int migio_put_u16(struct migio *io, uint16_t v);
int migio_put_u32(struct migio *io, uint32_t v);
int migio_put_u64(struct migio *io, uint64_t v);
int migio_flush(struct migio *io);
int migio_get(struct migio *io, void *p, size_t len);
int migio_get_u16(struct migio *io, uint16_t *v);
int migio_get_u32(struct migio *io, uint32_t *v);
int migio_get_u64(struct migio *io, uint64_t *v);
int migio_skip(struct migio *io, uint64_t len);
bool migio_at_end(struct migio *io);
uint64_t migio_now_us(void);

/**
 * migio_wr_be16() - store a 16-bit integer big endian in a record
 * @p:		where, two bytes
 * @v:		the integer
 */
static inline void migio_wr_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/**
 * migio_rd_be16() - load a 16-bit integer stored big endian in a record
 * @p:		where, two bytes
 *
 * Return: the integer
 */
static inline uint16_t migio_rd_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/**
 * migio_wr_be32() - store a 32-bit integer big endian in a record
 * @p:		where, four bytes
 * @v:		the integer
 */
static inline void migio_wr_be32(uint8_t *p, uint32_t v)
{
	migio_wr_be16(p, (uint16_t)(v >> 16));
	migio_wr_be16(p + 2, (uint16_t)v);
}

/**
 * migio_rd_be32() - load a 32-bit integer stored big endian in a record
 * @p:		where, four bytes
 *
 * Return: the integer
 */
static inline uint32_t migio_rd_be32(const uint8_t *p)
{
	return (uint32_t)migio_rd_be16(p) << 16 | migio_rd_be16(p + 2);
}

#endif /* NETSHIM_MIGIO_H */
