/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the forwarding specs of -t, -u, -T and -U: grammar and lookup
 */
#ifndef NETSHIM_FWDSPEC_H
#define NETSHIM_FWDSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "conf.h"

/* Ports "auto" follows at once, per protocol (daemon/fwd_auto.c) */
#define FWD_AUTO_MAX		1024

int fwdspec_parse(struct fwd_spec *spec, const char *arg);
const struct fwd_rule *fwdspec_find(const struct fwd_spec *spec,
				    uint16_t port);
uint16_t fwdspec_to(const struct fwd_rule *r, uint16_t port);
bool fwdspec_lookup(const struct fwd_spec *spec, uint16_t port,
		    uint16_t *to);
bool fwdspec_is_target(const struct fwd_spec *spec, const struct in6_addr *a);
void fwdspec_format(const struct fwd_spec *spec, char *buf, size_t size);

#endif /* NETSHIM_FWDSPEC_H */
