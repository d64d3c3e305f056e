/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - forwarding specs as passt's rule tables, and back
 */
#ifndef NETSHIM_FWDTABLE_H
#define NETSHIM_FWDTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "ctlwire.h"

/**
 * struct fwdtable_opts - what turning a spec into rules needs to know
 * @v4:		IPv4 is enabled
 * @v6:		IPv6 is enabled
 * @splice:	the spec is -T's or -U's: the namespace's loopback,
 *		"[*]%lo" as pasta lists it
 * @follow_vm:	"auto" is the sk_lookup program's, for a VM: every port
 *		not excluded, rather than the namespace's listeners
 */
struct fwdtable_opts {
	bool v4, v6;
	bool splice;
	bool follow_vm;
};

int fwdtable_from_spec(struct ctl_table *t, const struct fwd_spec *spec,
		       uint8_t proto, const struct fwdtable_opts *o,
		       const char **why);
int fwdtable_to_spec(const struct ctl_table *t, uint8_t proto,
		     struct fwd_spec *spec);
bool fwdtable_rule_eq(const struct ctl_rule *a, const struct ctl_rule *b);
int fwdtable_add(struct ctl_table *t, const struct ctl_rule *r, char *why,
		 size_t size);
int fwdtable_del(struct ctl_table *t, const struct ctl_rule *r, char *why,
		 size_t size);

#endif /* NETSHIM_FWDTABLE_H */
