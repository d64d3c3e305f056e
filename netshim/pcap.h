/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - capture of guest frames in libpcap format
 */
#ifndef NETSHIM_PCAP_H
#define NETSHIM_PCAP_H

#include <stddef.h>
#include <stdint.h>

#include "ctx.h"

int pcap_open(struct ctx *c, const char *path);
void pcap_frame(struct ctx *c, const uint8_t *frame, size_t len);
int pcap_live_init(size_t size);
int pcap_live_start(struct ctx *c, int fd, uint32_t snaplen);
int pcap_live_flush(struct ctx *c);
void pcap_live_stop(struct ctx *c, uint64_t *frames, uint64_t *dropped);
void pcap_live_end(struct ctx *c);
int pcap_live_fd(void);

#endif /* NETSHIM_PCAP_H */
