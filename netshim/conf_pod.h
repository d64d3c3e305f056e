/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the defaults worked out from the pod: what the command line
 * left unsaid, taken from the template interface and resolv.conf
 */
#ifndef NETSHIM_CONF_POD_H
#define NETSHIM_CONF_POD_H

#include "conf.h"
#include "conf_internal.h"

int conf_pod(struct conf *c, const struct conf_state *st);

#endif /* NETSHIM_CONF_POD_H */
