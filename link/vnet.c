// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the virtio-net header, built and checked as plain bytes */
#include <string.h>

#include "vnet.h"

/**
 * wr16le() - store a little-endian 16-bit field
 * @b:		where
 * @v:		value
 */
static void wr16le(uint8_t *b, uint16_t v)
{
	b[0] = v & 0xff;
	b[1] = v >> 8;
}

/**
 * rd16le() - load a little-endian 16-bit field
 * @b:		where
 *
 * Return: the value
 */
static uint16_t rd16le(const uint8_t *b)
{
	return (uint16_t)(b[0] | b[1] << 8);
}

/**
 * vnet_hdr_build() - write the first ten bytes of a virtio-net header
 * @out:	VNET_HDR_BASE_LEN bytes; num_buffers, if any, is the caller's
 * @o:		offloads of the frame, NULL for none
 */
void vnet_hdr_build(uint8_t *out, const struct link_offload *o)
{
	memset(out, 0, VNET_HDR_BASE_LEN);
	if (!o)
		return;
	out[0] = o->flags;
	out[1] = o->gso_type;
	wr16le(out + 2, o->hdr_len);
	wr16le(out + 4, o->gso_size);
	wr16le(out + 6, o->csum_start);
	wr16le(out + 8, o->csum_offset);
}

/**
 * vnet_hdr_parse() - check the header of a frame from the guest
 * @hdr:	the header bytes, at least VNET_HDR_BASE_LEN of them
 * @frame_len:	length of the frame behind it
 * @ok:		what the guest negotiated: anything else is refused
 * @o:		filled in with the offloads
 *
 * The driver may only ask for what was negotiated (5.1.6.2.1): a partial
 * checksum must lie inside the frame, a GSO frame must say how large its
 * segments are and have its headers inside the frame.  DATA_VALID means
 * nothing from a driver and is ignored.
 *
 * Return: 0 if the header is usable, -1 if the frame must be dropped
 */
int vnet_hdr_parse(const struct pkt *hdr, size_t frame_len,
		   const struct vnet_accept *ok, struct link_offload *o)
{
	const uint8_t *h = pkt_get(hdr, 0, VNET_HDR_BASE_LEN);
	uint8_t gso;

	if (!h)
		return -1;
	o->flags = h[0];
	o->gso_type = h[1];
	o->hdr_len = rd16le(h + 2);
	o->gso_size = rd16le(h + 4);
	o->csum_start = rd16le(h + 6);
	o->csum_offset = rd16le(h + 8);

	if (o->flags & ~(VNET_F_NEEDS_CSUM | VNET_F_DATA_VALID))
		return -1;
	o->flags &= VNET_F_NEEDS_CSUM;
	if (o->flags & VNET_F_NEEDS_CSUM) {
		if (!ok->csum ||
		    (size_t)o->csum_start + o->csum_offset + 2 > frame_len)
			return -1;
	}

	if ((o->gso_type & VNET_GSO_ECN) && !ok->ecn)
		return -1;
	gso = o->gso_type & ~VNET_GSO_ECN;
	switch (gso) {
	case VNET_GSO_NONE:
		if (o->gso_type & VNET_GSO_ECN)
			return -1;
		return 0;
	case VNET_GSO_TCPV4:
		if (!ok->tso4)
			return -1;
		break;
	case VNET_GSO_TCPV6:
		if (!ok->tso6)
			return -1;
		break;
	default:
		return -1;
	}
	if (!o->gso_size || o->hdr_len > frame_len)
		return -1;
	return 0;
}
