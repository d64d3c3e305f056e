/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - vhost-user: what goes over the front-end's UNIX socket
 *
 * From QEMU's docs/interop/vhost-user.rst: a 12-byte header (request,
 * flags, payload size, host byte order), the payload, and file descriptors
 * as SCM_RIGHTS ancillary data with the header.
 */
#ifndef VHOST_USER_PROTO_H
#define VHOST_USER_PROTO_H

#include <stdint.h>

enum vu_request {
	VU_GET_FEATURES			= 1,
	VU_SET_FEATURES			= 2,
	VU_SET_OWNER			= 3,
	VU_RESET_OWNER			= 4,
	VU_SET_MEM_TABLE		= 5,
	VU_SET_LOG_BASE			= 6,
	VU_SET_LOG_FD			= 7,
	VU_SET_VRING_NUM		= 8,
	VU_SET_VRING_ADDR		= 9,
	VU_SET_VRING_BASE		= 10,
	VU_GET_VRING_BASE		= 11,
	VU_SET_VRING_KICK		= 12,
	VU_SET_VRING_CALL		= 13,
	VU_SET_VRING_ERR		= 14,
	VU_GET_PROTOCOL_FEATURES	= 15,
	VU_SET_PROTOCOL_FEATURES	= 16,
	VU_GET_QUEUE_NUM		= 17,
	VU_SET_VRING_ENABLE		= 18,
	VU_SEND_RARP			= 19,
	VU_NET_SET_MTU			= 20,
	VU_SET_BACKEND_REQ_FD		= 21,
	VU_GET_CONFIG			= 24,
	VU_SET_CONFIG			= 25,
	VU_GET_INFLIGHT_FD		= 31,
	VU_RESET_DEVICE			= 34,
	VU_GET_MAX_MEM_SLOTS		= 36,
	VU_ADD_MEM_REG			= 37,
	VU_REM_MEM_REG			= 38,
	VU_SET_STATUS			= 39,
	VU_GET_STATUS			= 40,
	VU_SET_DEVICE_STATE_FD		= 42,
	VU_CHECK_DEVICE_STATE		= 43,
};

#define VU_HDR_LEN		12
#define VU_FLAG_VERSION_MASK	0x3
#define VU_VERSION		0x1
#define VU_FLAG_REPLY		(1U << 2)
#define VU_FLAG_NEED_REPLY	(1U << 3)

/* The largest payload netshim reads: GET/SET_CONFIG's header and 256 bytes
 * of configuration space is the largest a front-end sends to a net device;
 * a memory table of 8 regions is 264 bytes.
 */
#define VU_PAYLOAD_MAX		512
#define VU_FDS_MAX		8

#define VU_F_LOG_ALL		26	/* VHOST_F_LOG_ALL: writes logged */
#define VU_F_PROTOCOL_FEATURES	30

#define VU_PROTOCOL_F_MQ	0
#define VU_PROTOCOL_F_LOG_SHMFD	1
#define VU_PROTOCOL_F_RARP	2
#define VU_PROTOCOL_F_REPLY_ACK	3
#define VU_PROTOCOL_F_CONFIGURE_MEM_SLOTS	15
#define VU_PROTOCOL_F_DEVICE_STATE	19

/* SET_VRING_KICK, _CALL, _ERR: queue index, and "no descriptor sent" */
#define VU_VRING_IDX_MASK	0xff
#define VU_VRING_NOFD		(1U << 8)

#define VU_STATE_LEN		8	/* struct vhost_vring_state */
#define VU_ADDR_LEN		40	/* struct vhost_vring_addr */
#define VU_MEM_HDR_LEN		8	/* nregions, padding */
#define VU_MEM_REGION_LEN	32	/* struct vhost_user_memory_region */
#define VU_CONFIG_HDR_LEN	12	/* offset, size, flags */
#define VU_MEM_REG_LEN		40	/* padding, one region: ADD/REM_MEM_REG */
#define VU_LOG_LEN		16	/* SET_LOG_BASE: mmap size, offset */
#define VU_TRANSFER_LEN		8	/* SET_DEVICE_STATE_FD: direction, phase */

/* SET_VRING_ADDR's flags: used ring writes to be logged */
#define VU_VRING_F_LOG		1

/* SET_DEVICE_STATE_FD: directions, the one phase, and the reply's bit
 * saying the back-end sends no descriptor of its own
 */
#define VU_TRANSFER_SAVE	0
#define VU_TRANSFER_LOAD	1
#define VU_TRANSFER_STOPPED	0
#define VU_TRANSFER_NOFD	(1U << 8)

#endif /* VHOST_USER_PROTO_H */
