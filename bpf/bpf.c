// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - what the eBPF features of bpf/ share
 *
 * Each feature (a program of bpf/ and its loader) is optional: --bpf auto
 * loads it where the kernel and netshim's privileges allow and otherwise
 * says once what is missing and does without; --bpf require makes that a
 * failed start; --bpf off never tries.  This file holds that policy, the
 * one explanation of why a program could not be loaded, and the routing
 * of libbpf's own messages into netshim's log.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include <bpf/libbpf.h>

#include "bpf.h"
#include "netshim/log.h"

/* Capability numbers, from linux/capability.h (not every libc has them) */
#define BPF_CAP_NET_ADMIN	12
#define BPF_CAP_SYS_ADMIN	21
#define BPF_CAP_BPF		39

/**
 * bpf_libbpf_print() - libbpf's messages, into netshim's debug log
 * @level:	libbpf's level
 * @fmt:	format
 * @ap:		arguments
 *
 * Return: 0
 */
static int bpf_libbpf_print(enum libbpf_print_level level, const char *fmt,
			    va_list ap)
{
	char buf[512];
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	debug("libbpf: %s", buf);
	return 0;
}

/**
 * bpf_log_init() - send libbpf's messages to netshim's log
 */
void bpf_log_init(void)
{
	libbpf_set_print(bpf_libbpf_print);
}

/**
 * bpf_wanted() - tell if the eBPF features are to be tried at all
 * @conf:	configuration
 *
 * Return: false for --bpf off
 */
bool bpf_wanted(const struct conf *conf)
{
	return conf->bpf != CONF_BPF_OFF;
}

/**
 * bpf_cap_eff() - the effective capability set of this process
 *
 * Return: the set, one bit per capability; 0 if it cannot be read
 */
static unsigned long long bpf_cap_eff(void)
{
	unsigned long long caps = 0;
	char line[128];
	FILE *f;

	f = fopen("/proc/self/status", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps;
}

/**
 * bpf_initial_userns() - tell if this process is in the initial user
 *			  namespace, where BPF capabilities count
 *
 * Return: true if it is (or it cannot be told)
 */
static bool bpf_initial_userns(void)
{
	unsigned long inside, outside, count;
	bool initial = true;
	FILE *f;

	f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return true;
	if (fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3)
		initial = !inside && !outside && count == 4294967295UL;
	fclose(f);
	return initial;
}

/**
 * bpf_why() - say why a program, map or attachment could not be made
 * @err:	the error libbpf or bpf() returned, negative or positive
 * @buf:	buffer for the explanation
 * @len:	its size
 *
 * Return: @buf, naming what is missing (a capability, a namespace, a
 *	   kernel feature)
 */
const char *bpf_why(int err, char *buf, size_t len)
{
	unsigned long long caps = bpf_cap_eff();
	struct utsname u;

	if (err < 0)
		err = -err;
	if (err == EPERM || err == EACCES) {
		bool bpf = caps & (1ULL << BPF_CAP_BPF);
		bool net = caps & (1ULL << BPF_CAP_NET_ADMIN);
		bool sys = caps & (1ULL << BPF_CAP_SYS_ADMIN);

		if (!bpf_initial_userns())
			snprintf(buf, len, "netshim runs in a user namespace "
				 "other than the initial one, where CAP_BPF "
				 "and CAP_NET_ADMIN do not count");
		else if ((!bpf && !sys) || !net)
			snprintf(buf, len, "it needs CAP_BPF and "
				 "CAP_NET_ADMIN, and netshim lacks %s%s%s",
				 bpf || sys ? "" : "CAP_BPF",
				 (bpf || sys) || net ? "" : " and ",
				 net ? "" : "CAP_NET_ADMIN");
		else
			snprintf(buf, len, "the kernel refused it (%s) "
				 "although netshim has CAP_BPF and "
				 "CAP_NET_ADMIN: a security module or a "
				 "seccomp filter of the launcher?",
				 strerror(err));
		return buf;
	}
	if (uname(&u))
		strcpy(u.release, "?");
	if (err == EINVAL || err == ENOTSUP || err == ENOENT ||
	    err == E2BIG || err == ENOSYS)
		snprintf(buf, len, "this kernel (%s) lacks what it needs (%s)",
			 u.release, strerror(err));
	else
		snprintf(buf, len, "%s", strerror(err));
	return buf;
}

/**
 * bpf_fallback() - a feature could not be loaded: say so, or fail
 * @conf:	configuration (--bpf)
 * @feature:	what could not be loaded, e.g. "sockmap fast path"
 * @instead:	what netshim does without it, e.g. "splicing local flows"
 * @err:	the error, as for bpf_why()
 *
 * Return: 0 to go on without the feature (--bpf auto), -1 to exit
 *	   (--bpf require)
 */
int bpf_fallback(const struct conf *conf, const char *feature,
		 const char *instead, int err)
{
	char why[256];

	bpf_why(err, why, sizeof(why));
	if (conf->bpf == CONF_BPF_REQUIRE) {
		err("--bpf require: cannot load the eBPF %s: %s", feature,
		    why);
		return -1;
	}
	warn("eBPF %s not loaded, %s instead: %s", feature, instead, why);
	return 0;
}
