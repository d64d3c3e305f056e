// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - domain names in DNS wire format (RFC 1035 3.1), uncompressed:
 * the search lists of DHCP option 119 (RFC 3397), DHCPv6 option 24 and the
 * NDP DNSSL option (RFC 8106) all carry names this way.
 */
#include <string.h>

#include "conf.h"
#include "dnsname.h"

/**
 * dns_name_encode() - encode a domain name as uncompressed DNS labels
 * @name:	domain name, dotted, optionally with a trailing dot, at most
 *		CONF_SEARCH_LEN characters are read
 * @out:	where the encoded name goes
 * @size:	room at @out
 *
 * Return: encoded length, or 0 if the name is empty, malformed, longer than
 *	   a DNS name may be, or does not fit
 */
size_t dns_name_encode(const char *name, uint8_t *out, size_t size)
{
	const char *end = name + strnlen(name, CONF_SEARCH_LEN + 1), *dot;
	size_t n = 0, len;

	if (size > DNS_NAME_MAX)
		size = DNS_NAME_MAX;

	while (name < end) {
		dot = memchr(name, '.', (size_t)(end - name));
		if (!dot)
			dot = end;
		len = (size_t)(dot - name);
		if (!len || len > DNS_LABEL_MAX || n + 1 + len + 1 > size)
			return 0;
		out[n++] = (uint8_t)len;
		memcpy(out + n, name, len);
		n += len;
		name = dot < end ? dot + 1 : end;
	}
	if (!n)
		return 0;
	out[n++] = 0;
	return n;
}
