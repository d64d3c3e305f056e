/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the virtio-net header: offloads between a guest and its link
 *
 * struct virtio_net_hdr (virtio 1.2, 5.1.6) carries what a frame needs
 * besides its bytes: a partial checksum to finish, a TCP segment larger
 * than the MTU to be cut by whoever sends it on.  vhost-user puts it in
 * front of every frame, a tap with IFF_VNET_HDR does too.  Here it is
 * built and parsed as plain bytes (little-endian, as VERSION_1 and every
 * x86 legacy device have it), with no back-end in sight.
 */
#ifndef NETSHIM_VNET_H
#define NETSHIM_VNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netshim/packet.h"

#define VNET_HDR_BASE_LEN	10	/* without num_buffers */

#define VNET_F_NEEDS_CSUM	1
#define VNET_F_DATA_VALID	2

#define VNET_GSO_NONE		0
#define VNET_GSO_TCPV4		1
#define VNET_GSO_UDP		3
#define VNET_GSO_TCPV6		4
#define VNET_GSO_ECN		0x80

/**
 * struct link_offload - the offload metadata of one frame
 * @flags:	VNET_F_*
 * @gso_type:	VNET_GSO_*
 * @hdr_len:	Ethernet, IP and TCP header bytes of a GSO frame
 * @gso_size:	payload bytes of each segment it is cut into
 * @csum_start:	where the checksum to finish starts counting
 * @csum_offset: where, from @csum_start, the checksum is stored
 */
struct link_offload {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
};

/**
 * struct vnet_accept - the offloads a guest may use in frames it sends
 * @csum:	VIRTIO_NET_F_CSUM: partial checksums
 * @tso4:	VIRTIO_NET_F_HOST_TSO4
 * @tso6:	VIRTIO_NET_F_HOST_TSO6
 * @ecn:	VIRTIO_NET_F_HOST_ECN
 */
struct vnet_accept {
	bool csum, tso4, tso6, ecn;
};

void vnet_hdr_build(uint8_t *out, const struct link_offload *o);
int vnet_hdr_parse(const struct pkt *hdr, size_t frame_len,
		   const struct vnet_accept *ok, struct link_offload *o);

#endif /* NETSHIM_VNET_H */
