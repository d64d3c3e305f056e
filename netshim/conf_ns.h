/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the command line's rules of namespace mode: which options it
 * takes, which a VM takes, and the user's shell when it names no command
 */
#ifndef NETSHIM_CONF_NS_H
#define NETSHIM_CONF_NS_H

#include <stdbool.h>

#include "conf.h"
#include "conf_internal.h"

int conf_ns_check(struct conf *c, const struct conf_state *st, bool dashes);

#endif /* NETSHIM_CONF_NS_H */
