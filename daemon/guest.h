/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the guest's side of the loop: frames and news from the link,
 *	     up to the protocol layers
 */
#ifndef NETSHIM_GUEST_H
#define NETSHIM_GUEST_H

#include <stdint.h>

#include "link/link.h"
#include "netshim/ctx.h"

void guest_frame_in(struct ctx *c, const struct link_in_frame *f);
void guest_frames_up(struct ctx *c);
void guest_link_event(struct ctx *c, uint32_t idx, uint32_t events);
void guest_news(struct ctx *c);
void guest_mac_fixed(struct ctx *c, const uint8_t *mac);

#endif /* NETSHIM_GUEST_H */
