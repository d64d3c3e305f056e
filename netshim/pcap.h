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

#endif /* NETSHIM_PCAP_H */
