/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - bounds-checked access to packet bytes
 *
 * Every byte that comes from the guest or the VMM is reached through
 * pkt_get(): offset and length in, pointer or NULL out.  Packet bytes are
 * never dereferenced as structures in place (frames are not aligned); the
 * rd/wr helpers and memcpy() into local structures are used instead.
 */
#ifndef NETSHIM_PACKET_H
#define NETSHIM_PACKET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdbool.h>

/**
 * struct pkt - a view of packet bytes that may not be trusted
 * @data:	first byte
 * @len:	number of valid bytes from @data
 */
struct pkt {
	const uint8_t *data;
	size_t len;
};

/**
 * pkt_get() - checked pointer to a range of a packet
 * @p:		packet view
 * @off:	offset of the range
 * @len:	length of the range
 *
 * Return: pointer to @len bytes at @off, or NULL if they are not all there
 */
static inline const uint8_t *pkt_get(const struct pkt *p, size_t off, size_t len)
{
	if (off > p->len || len > p->len - off)
		return NULL;
	return p->data + off;
}

/**
 * pkt_copy() - copy a range of a packet into a local object
 * @p:		packet view
 * @off:	offset of the range
 * @dst:	destination
 * @len:	length of the range
 *
 * Return: true if the whole range was there and copied
 */
static inline bool pkt_copy(const struct pkt *p, size_t off, void *dst, size_t len)
{
	const uint8_t *src = pkt_get(p, off, len);

	if (!src)
		return false;
	memcpy(dst, src, len);
	return true;
}

/**
 * pkt_sub() - view of the packet from @off to its end
 * @p:		packet view
 * @off:	offset where the sub-view starts
 * @sub:	the sub-view, filled in
 *
 * Return: true if @off is within the packet (the sub-view may be empty)
 */
static inline bool pkt_sub(const struct pkt *p, size_t off, struct pkt *sub)
{
	if (off > p->len)
		return false;
	sub->data = p->data + off;
	sub->len = p->len - off;
	return true;
}

/* Unaligned network-order reads and writes on raw bytes */
static inline uint16_t rd16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t rd32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

static inline void wr16(uint8_t *b, uint16_t v)
{
	b[0] = v >> 8;
	b[1] = v & 0xff;
}

static inline void wr32(uint8_t *b, uint32_t v)
{
	b[0] = v >> 24;
	b[1] = (v >> 16) & 0xff;
	b[2] = (v >> 8) & 0xff;
	b[3] = v & 0xff;
}

#endif /* NETSHIM_PACKET_H */
