// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the DNS servers and search domains the guest is given
 *
 * By default the pod's own, from its resolv.conf: nameservers the guest
 * can reach (not the pod's loopback, not link-local ones) and the search
 * list; -D and -S replace them (conf.c) through the same list.
 */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "addrparse.h"
#include "log.h"
#include "resolv.h"

#define RESOLV_LINE_MAX		512

/**
 * resolv_add_dns() - append a DNS server to the list of its family
 * @c:		configuration
 * @af:		AF_INET or AF_INET6
 * @a4:		IPv4 address, if @af is AF_INET
 * @a6:		IPv6 address, if @af is AF_INET6
 *
 * Return: 0 on success, -1 if the list is full
 */
int resolv_add_dns(struct conf *c, int af, const struct in_addr *a4,
		   const struct in6_addr *a6)
{
	if (af == AF_INET) {
		if (c->n_dns4 >= CONF_MAX_DNS)
			return -1;
		c->dns4[c->n_dns4++] = *a4;
	} else {
		if (c->n_dns6 >= CONF_MAX_DNS)
			return -1;
		c->dns6[c->n_dns6++] = *a6;
	}
	return 0;
}

/**
 * resolv_nameserver() - take a "nameserver" line's address
 * @c:		configuration
 * @arg:	address text, may be NULL
 *
 * The guest reaches DNS servers through netshim's sockets in the pod, so
 * a resolver on the pod's loopback (systemd-resolved's 127.0.0.53) or on
 * a link of the pod is unreachable from the guest's point of view.
 */
static void resolv_nameserver(struct conf *c, const char *arg)
{
	struct in6_addr a6;
	struct in_addr a4;
	int af;

	if (!arg)
		return;
	if (strchr(arg, '%')) {
		warn("resolv.conf: skipping scoped nameserver %s", arg);
		return;
	}
	af = addr_parse(arg, &a4, &a6);
	if (!af || addr_not_unicast(af, &a4, &a6)) {
		warn("resolv.conf: skipping invalid nameserver %s", arg);
		return;
	}
	if (addr_is_loopback(af, &a4, &a6)) {
		warn("resolv.conf: skipping loopback nameserver %s: the guest cannot reach it; use -D",
		     arg);
		return;
	}
	if (af == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&a6)) {
		warn("resolv.conf: skipping link-local nameserver %s", arg);
		return;
	}
	if (resolv_add_dns(c, af, &a4, &a6))
		warn("resolv.conf: too many nameservers, skipping %s", arg);
}

/**
 * resolv_search() - take a "search" or "domain" line's domains
 * @c:		configuration
 * @save:	strtok_r() state, positioned after the keyword
 * @one:	take only the first domain ("domain" lines)
 *
 * As for the resolver, the last "search" or "domain" line wins.
 */
static void resolv_search(struct conf *c, char **save, bool one)
{
	const char *d;

	c->n_search = 0;
	while ((d = strtok_r(NULL, " \t\r\n", save))) {
		if (strlen(d) > CONF_SEARCH_LEN) {
			warn("resolv.conf: skipping long search domain");
			continue;
		}
		if (c->n_search >= CONF_MAX_SEARCH) {
			warn("resolv.conf: too many search domains, skipping %s",
			     d);
			return;
		}
		strcpy(c->search[c->n_search++], d);
		if (one)
			return;
	}
}

/**
 * resolv_skip_line() - discard the rest of a line that did not fit
 * @f:		file
 */
static void resolv_skip_line(FILE *f)
{
	int ch;

	do
		ch = getc(f);
	while (ch != EOF && ch != '\n');
}

/**
 * resolv_read() - DNS servers and search domains from a resolv.conf
 * @c:		configuration: its DNS servers and search domains are
 *		replaced by those of the file
 * @path:	file, normally /etc/resolv.conf
 *
 * Return: 0 on success, -1 if @path cannot be opened (errno set)
 */
int resolv_read(struct conf *c, const char *path)
{
	char line[RESOLV_LINE_MAX], *kw, *save;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -1;

	c->n_dns4 = c->n_dns6 = c->n_search = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strchr(line, '\n') && !feof(f)) {
			warn("resolv.conf: skipping line longer than %d bytes",
			     RESOLV_LINE_MAX - 2);
			resolv_skip_line(f);
			continue;
		}
		kw = strtok_r(line, " \t\r\n", &save);
		if (!kw)
			continue;
		if (!strcmp(kw, "nameserver"))
			resolv_nameserver(c, strtok_r(NULL, " \t\r\n", &save));
		else if (!strcmp(kw, "search"))
			resolv_search(c, &save, false);
		else if (!strcmp(kw, "domain"))
			resolv_search(c, &save, true);
	}
	fclose(f);
	return 0;
}
