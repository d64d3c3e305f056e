// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests of the configuration: port specs, netmasks,
 * resolv.conf, and the command line
 *
 * conf_parse() is only given command lines that name every address,
 * prefix and gateway and no interface, so the template interface is never
 * read: these tests do not depend on the machine's network.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "unit.h"
#include "netshim/conf.h"
#include "netshim/log.h"
#include "netshim/fwdspec.h"
#include "netshim/resolv.h"

#define ARGC(a)		((int)(sizeof(a) / sizeof((a)[0])))

/* A command line needing nothing from the template interface */
#define BASE4	"netshim", "-s", "/tmp/netshim-unit.socket", "-4",	\
		"-a", "203.0.113.2", "-n", "24", "-g", "203.0.113.1",	\
		"-D", "203.0.113.1", "-S", "example.com"

/* The same for namespace mode, which takes no socket */
#define NSBASE4	"netshim", "-4",					\
		"-a", "203.0.113.2", "-n", "24", "-g", "203.0.113.1",	\
		"-D", "203.0.113.1", "-S", "example.com"

static struct conf conf;

/**
 * fwd() - parse a spec into a fresh struct fwd_spec
 * @arg:	spec
 * @spec:	output
 *
 * Return: fwdspec_parse()'s return value
 */
static int fwd(const char *arg, struct fwd_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	return fwdspec_parse(spec, arg);
}

/**
 * fwd_to() - look a port up, returning the guest port or 0
 * @spec:	forwarding spec
 * @port:	pod port
 *
 * Return: guest port, or 0 if @port is not forwarded
 */
static unsigned int fwd_to(const struct fwd_spec *spec, uint16_t port)
{
	uint16_t to = 0;

	return fwdspec_lookup(spec, port, &to) ? to : 0;
}

static void test_fwd_single(void **state)
{
	struct fwd_spec s;

	(void)state;
	assert_int_equal(fwd("80", &s), 0);
	assert_int_equal(s.n, 1);
	assert_false(s.all);
	assert_int_equal(s.rule[0].first, 80);
	assert_int_equal(s.rule[0].last, 80);
	assert_int_equal(s.rule[0].to, 80);
	assert_false(s.rule[0].exclude);
	assert_string_equal(s.rule[0].bind, "");
	assert_int_equal(fwd_to(&s, 80), 80);
	assert_int_equal(fwd_to(&s, 79), 0);
	assert_int_equal(fwd_to(&s, 81), 0);
	assert_int_equal(fwd_to(&s, 0), 0);
	assert_true(fwdspec_lookup(&s, 80, NULL));

	assert_int_equal(fwd("65535", &s), 0);
	assert_int_equal(fwd_to(&s, 65535), 65535);
	assert_int_equal(fwd("1", &s), 0);
	assert_int_equal(fwd_to(&s, 1), 1);
}

static void test_fwd_map(void **state)
{
	struct fwd_spec s;

	(void)state;
	assert_int_equal(fwd("8080:80", &s), 0);
	assert_int_equal(s.rule[0].first, 8080);
	assert_int_equal(s.rule[0].to, 80);
	assert_int_equal(fwd_to(&s, 8080), 80);
	assert_int_equal(fwd_to(&s, 80), 0);
}

static void test_fwd_range(void **state)
{
	struct fwd_spec s;

	(void)state;
	assert_int_equal(fwd("1000-2000", &s), 0);
	assert_int_equal(s.rule[0].first, 1000);
	assert_int_equal(s.rule[0].last, 2000);
	assert_int_equal(fwd_to(&s, 1000), 1000);
	assert_int_equal(fwd_to(&s, 1500), 1500);
	assert_int_equal(fwd_to(&s, 2000), 2000);
	assert_int_equal(fwd_to(&s, 999), 0);
	assert_int_equal(fwd_to(&s, 2001), 0);

	assert_int_equal(fwd("5-5", &s), 0);
	assert_int_equal(fwd_to(&s, 5), 5);
}

static void test_fwd_range_map(void **state)
{
	struct fwd_spec s;

	(void)state;
	assert_int_equal(fwd("1000-2000:3000-4000", &s), 0);
	assert_int_equal(s.rule[0].to, 3000);
	assert_int_equal(fwd_to(&s, 1000), 3000);
	assert_int_equal(fwd_to(&s, 1500), 3500);
	assert_int_equal(fwd_to(&s, 2000), 4000);
	assert_int_equal(fwd_to(&s, 3000), 0);

	assert_int_equal(fwd("65534-65535:1-2", &s), 0);
	assert_int_equal(fwd_to(&s, 65535), 2);
}

static void test_fwd_exclude(void **state)
{
	struct fwd_spec s;

	(void)state;
	assert_int_equal(fwd("~22", &s), 0);
	assert_true(s.rule[0].exclude);
	assert_int_equal(fwd_to(&s, 22), 0);
	assert_int_equal(fwd_to(&s, 21), 21);
	assert_int_equal(fwd_to(&s, 65535), 65535);
	assert_int_equal(fwd_to(&s, 0), 0);

	assert_int_equal(fwd("~1000-2000,~22", &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(fwd_to(&s, 1000), 0);
	assert_int_equal(fwd_to(&s, 2000), 0);
	assert_int_equal(fwd_to(&s, 22), 0);
	assert_int_equal(fwd_to(&s, 2001), 2001);
	assert_int_equal(fwd_to(&s, 999), 999);
}

static void test_fwd_mixed(void **state)
{
	struct fwd_spec s;

	(void)state;
	/* Exclusions win, whatever the order */
	assert_int_equal(fwd("80,~80", &s), 0);
	assert_int_equal(fwd_to(&s, 80), 0);
	assert_int_equal(fwd("~80,80", &s), 0);
	assert_int_equal(fwd_to(&s, 80), 0);

	/* With explicit rules, exclusions only cut holes in them */
	assert_int_equal(fwd("1000-2000,~1500", &s), 0);
	assert_int_equal(fwd_to(&s, 1499), 1499);
	assert_int_equal(fwd_to(&s, 1500), 0);
	assert_int_equal(fwd_to(&s, 80), 0);

	/* The first rule holding the port gives the target */
	assert_int_equal(fwd("8080:80,8000-9000", &s), 0);
	assert_int_equal(fwd_to(&s, 8080), 80);
	assert_int_equal(fwd_to(&s, 8081), 8081);
}

static void test_fwd_bind(void **state)
{
	struct fwd_spec s;

	(void)state;
	assert_int_equal(fwd("203.0.113.2/80", &s), 0);
	assert_string_equal(s.rule[0].bind, "203.0.113.2");
	assert_int_equal(fwd_to(&s, 80), 80);

	assert_int_equal(fwd("2001:db8::2/8080:80", &s), 0);
	assert_string_equal(s.rule[0].bind, "2001:db8::2");
	assert_int_equal(s.rule[0].first, 8080);
	assert_int_equal(s.rule[0].to, 80);

	/* Stored in canonical form */
	assert_int_equal(fwd("2001:0db8:0:0::0002/1-2", &s), 0);
	assert_string_equal(s.rule[0].bind, "2001:db8::2");

	/* An address binds the elements after it too, as passt's
	 * "ADDR/22,80" binds both ports, until the next address
	 */
	assert_int_equal(fwd("198.51.100.1/22,80,2001:db8::1/443,444", &s), 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.rule[0].bind, "198.51.100.1");
	assert_string_equal(s.rule[1].bind, "198.51.100.1");
	assert_string_equal(s.rule[2].bind, "2001:db8::1");
	assert_string_equal(s.rule[3].bind, "2001:db8::1");

	/* "*" is any address; an interface alone, or after "*" */
	assert_int_equal(fwd("*/22", &s), 0);
	assert_string_equal(s.rule[0].bind, "");
	assert_int_equal(fwd("*%eth0/22,23", &s), 0);
	assert_string_equal(s.rule[1].dev, "eth0");
	assert_string_equal(s.rule[1].bind, "");
	assert_int_equal(fwd("[2001:db8::1]%eth0/22", &s), 0);
	assert_string_equal(s.rule[0].bind, "2001:db8::1");
	assert_string_equal(s.rule[0].dev, "eth0");

	/* "ADDR/all" binds every port it forwards; and exclusions alone */
	assert_int_equal(fwd("127.0.0.6/all", &s), 0);
	assert_true(s.all);
	assert_string_equal(s.all_rule.bind, "127.0.0.6");
	assert_int_equal(fwd_to(&s, 4000), 4000);
	assert_int_equal(fwd("203.0.113.2/~22", &s), 0);
	assert_string_equal(s.all_rule.bind, "203.0.113.2");
	assert_int_equal(fwd_to(&s, 22), 0);
	assert_int_equal(fwd_to(&s, 23), 23);
}

/**
 * target_is() - tell if the rule forwarding a port goes to an address
 * @s:		forwarding spec
 * @port:	pod port
 * @addr:	address as text, "" for the guest's own
 *
 * Return: true if it does
 */
static bool target_is(const struct fwd_spec *s, uint16_t port,
		      const char *addr)
{
	const struct fwd_rule *r = fwdspec_find(s, port);
	struct in6_addr a = IN6ADDR_ANY_INIT;
	struct in_addr a4;

	if (!r)
		return false;
	if (inet_pton(AF_INET, addr, &a4) == 1) {
		memset(&a, 0, sizeof(a));
		a.s6_addr[10] = a.s6_addr[11] = 0xff;
		memcpy(&a.s6_addr[12], &a4, 4);
	} else if (*addr) {
		assert_int_equal(inet_pton(AF_INET6, addr, &a), 1);
	}
	return !memcmp(&r->to_addr, &a, sizeof(a));
}

/* passt 2026's target addresses: PORTS:ADDR/PORTS, PORTS:ADDR, all:ADDR */
static void test_fwd_target(void **state)
{
	struct in6_addr a;
	struct fwd_spec s;
	char buf[256];

	(void)state;
	assert_int_equal(fwd("0.0.0.0/5000:192.0.2.5/6000", &s), 0);
	assert_string_equal(s.rule[0].bind, "0.0.0.0");
	assert_int_equal(fwd_to(&s, 5000), 6000);
	assert_true(target_is(&s, 5000, "192.0.2.5"));

	/* No bind address: the target's family only (fwd.c) */
	assert_int_equal(fwd("5000-5001:198.51.100.7/6000-6001,22", &s), 0);
	assert_int_equal(fwd_to(&s, 5001), 6001);
	assert_true(target_is(&s, 5001, "198.51.100.7"));
	assert_true(target_is(&s, 22, ""));

	/* Address only: the ports keep their numbers */
	assert_int_equal(fwd("8000-8001:2001:db8::7", &s), 0);
	assert_int_equal(fwd_to(&s, 8001), 8001);
	assert_true(target_is(&s, 8001, "2001:db8::7"));
	assert_int_equal(fwd("80:[2001:db8::7]/8080", &s), 0);
	assert_int_equal(fwd_to(&s, 80), 8080);
	assert_true(target_is(&s, 80, "2001:db8::7"));
	assert_int_equal(fwd("::/80:2001:db8::7/8080", &s), 0);
	assert_string_equal(s.rule[0].bind, "::");
	assert_true(target_is(&s, 80, "2001:db8::7"));

	/* "all:ADDR", with rules beside it and exclusions */
	assert_int_equal(fwd("127.0.0.6/all:192.0.2.6,~22,80:8080", &s), 0);
	assert_true(s.all);
	assert_string_equal(s.all_rule.bind, "127.0.0.6");
	assert_true(target_is(&s, 4000, "192.0.2.6"));
	assert_int_equal(fwd_to(&s, 4000), 4000);
	assert_int_equal(fwd_to(&s, 22), 0);
	assert_int_equal(fwd_to(&s, 80), 8080);
	assert_true(target_is(&s, 80, ""));
	fwdspec_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "127.0.0.6/all->192.0.2.6, except 22, "
				 "127.0.0.6/80->8080");

	/* The guest answers from these: they are its (gaddr.c) */
	inet_pton(AF_INET6, "::ffff:192.0.2.6", &a);
	assert_true(fwdspec_is_target(&s, &a));
	inet_pton(AF_INET6, "::ffff:192.0.2.7", &a);
	assert_false(fwdspec_is_target(&s, &a));

	assert_int_equal(fwd("5000:198.51.100.7/6000", &s), 0);
	fwdspec_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "5000->198.51.100.7/6000");
}

static void test_fwd_all_none(void **state)
{
	struct fwd_spec s;

	(void)state;
	assert_int_equal(fwd("all", &s), 0);
	assert_true(s.all);
	assert_int_equal(s.n, 0);
	assert_int_equal(fwd_to(&s, 1), 1);
	assert_int_equal(fwd_to(&s, 65535), 65535);
	assert_int_equal(fwd_to(&s, 0), 0);

	/* "all" combines with exclusions given in another option */
	assert_int_equal(fwdspec_parse(&s, "~22"), 0);
	assert_int_equal(fwd_to(&s, 22), 0);
	assert_int_equal(fwd_to(&s, 23), 23);

	/* Rules append; "none" clears everything */
	assert_int_equal(fwd("80", &s), 0);
	assert_int_equal(fwdspec_parse(&s, "443"), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(fwd_to(&s, 443), 443);
	assert_int_equal(fwdspec_parse(&s, "none"), 0);
	assert_int_equal(s.n, 0);
	assert_false(s.all);
	assert_int_equal(fwd_to(&s, 80), 0);
	assert_int_equal(fwd_to(&s, 443), 0);
}

static void test_fwd_max_rules(void **state)
{
	char buf[2048] = "";
	struct fwd_spec s;
	int i;

	(void)state;
	for (i = 0; i < CONF_MAX_FWD; i++)
		sprintf(buf + strlen(buf), "%s%d", i ? "," : "", 100 + i);
	assert_int_equal(fwd(buf, &s), 0);
	assert_int_equal(s.n, CONF_MAX_FWD);
	assert_int_equal(fwd_to(&s, 100 + CONF_MAX_FWD - 1),
			 100 + CONF_MAX_FWD - 1);

	/* One more, in the same spec or in another one */
	strcat(buf, ",999");
	assert_int_equal(fwd(buf, &s), -1);
	assert_int_equal(s.n, 0);
	buf[strlen(buf) - 4] = '\0';
	assert_int_equal(fwd(buf, &s), 0);
	assert_int_equal(fwdspec_parse(&s, "999"), -1);
	assert_int_equal(s.n, CONF_MAX_FWD);
}

static void test_fwd_errors(void **state)
{
	static const char *const bad[] = {
		"0", "65536", "99999999999999999999", "2000-1000", "abc",
		"80x", "", ",80", "80,", "80,,81", "-1", "+80", " 80", "80 ",
		"80-", "-80", "80:", ":80", "1-2-3", "0-10", "10:0",
		"1000-2000:3000", "1000-2000:3000-3001", "80:1000-1001",
		"~22:80", "~", "~~22", "~203.0.113.2/22", "bogus/80",
		"203.0.113.2/", "/80", "203.0.113.256/80", "80/80",
		"none,80", "auto,80", "0x50", "8O",
		/* target addresses */
		"80:198.51.100.7/", "80:198.51.100.7/0", "80:bogus/80",
		"80:198.51.100.7/80-81", "80-81:198.51.100.7/80",
		"80:0.0.0.0", "80:::", "80:224.0.0.1", "80:ff02::1",
		"80:255.255.255.255", "80:127.0.0.1", "80:::1",
		"~80:198.51.100.7", "203.0.113.2/80:2001:db8::7",
		"2001:db8::2/80:198.51.100.7", "all:bogus", "all:",
		"all:198.51.100.7/80", "80:[198.51.100.7]", "80:[2001:db8::7",
		"all,198.51.100.1/all", "all:198.51.100.7,all",
	};
	struct fwd_spec s;
	unsigned int i;
	char huge[2048];

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&s, 0, sizeof(s));
		assert_int_equal(fwdspec_parse(&s, "443"), 0);
		if (fwdspec_parse(&s, bad[i]) != -1)
			fail_msg("spec '%s' accepted", bad[i]);
		/* A refused spec leaves the previous rules alone */
		assert_int_equal(s.n, 1);
		assert_int_equal(s.rule[0].first, 443);
	}

	memset(huge, '1', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	assert_int_equal(fwd(huge, &s), -1);
}

static void test_netmask(void **state)
{
	static const struct {
		const char *arg;
		int prefix;
	} good[] = {
		{ "0", 0 }, { "8", 8 }, { "24", 24 }, { "32", 32 },
		{ "255.255.255.0", 24 }, { "255.255.255.255", 32 },
		{ "0.0.0.0", 0 }, { "255.255.255.128", 25 },
		{ "255.0.0.0", 8 }, { "128.0.0.0", 1 },
	};
	static const char *const bad[] = {
		"33", "24x", "", "-1", "+24", " 24", "255.255.0.255",
		"0.255.255.255", "255.255.255.1", "255.255.255", "mask",
		"4294967296", "0x18",
	};
	unsigned int i;
	int prefix;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		prefix = -1;
		assert_int_equal(conf_netmask_parse(good[i].arg, &prefix), 0);
		assert_int_equal(prefix, good[i].prefix);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!conf_netmask_parse(bad[i], &prefix))
			fail_msg("netmask '%s' accepted", bad[i]);
	}
}

/**
 * resolv() - write @text to a temporary file and parse it into conf
 * @text:	resolv.conf contents
 *
 * Return: resolv_read()'s return value
 */
static int resolv(const char *text)
{
	char path[] = "/tmp/netshim-resolv-XXXXXX";
	int fd, ret;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);

	memset(&conf, 0, sizeof(conf));
	ret = resolv_read(&conf, path);
	unlink(path);
	return ret;
}

/**
 * assert_dns4() - check one IPv4 DNS server of conf
 * @i:		index
 * @addr:	expected address
 */
static void assert_dns4(int i, const char *addr)
{
	char buf[INET_ADDRSTRLEN];

	assert_non_null(inet_ntop(AF_INET, &conf.dns4[i], buf, sizeof(buf)));
	assert_string_equal(buf, addr);
}

/**
 * assert_dns6() - check one IPv6 DNS server of conf
 * @i:		index
 * @addr:	expected address
 */
static void assert_dns6(int i, const char *addr)
{
	char buf[INET6_ADDRSTRLEN];

	assert_non_null(inet_ntop(AF_INET6, &conf.dns6[i], buf, sizeof(buf)));
	assert_string_equal(buf, addr);
}

static void test_resolv_basic(void **state)
{
	(void)state;
	assert_int_equal(resolv(
		"# generated\n"
		"; another comment\n"
		"\n"
		"nameserver 198.51.100.53\n"
		"  nameserver\t2001:db8::53  \n"
		"nameserver 127.0.0.53\n"
		"nameserver 127.1.2.3\n"
		"nameserver ::1\n"
		"nameserver fe80::1%eth0\n"
		"nameserver fe80::1\n"
		"nameserver not-an-address\n"
		"nameserver\n"
		"nameserver 0.0.0.0\n"
		"options ndots:5\n"
		"nameserver 203.0.113.53\r\n"
		"search default.svc.cluster.local svc.cluster.local"
		" cluster.local\n"
		"nameserver 2001:db8::54"), 0);

	assert_int_equal(conf.n_dns4, 2);
	assert_dns4(0, "198.51.100.53");
	assert_dns4(1, "203.0.113.53");
	assert_int_equal(conf.n_dns6, 2);
	assert_dns6(0, "2001:db8::53");
	assert_dns6(1, "2001:db8::54");
	assert_int_equal(conf.n_search, 3);
	assert_string_equal(conf.search[0], "default.svc.cluster.local");
	assert_string_equal(conf.search[1], "svc.cluster.local");
	assert_string_equal(conf.search[2], "cluster.local");
}

static void test_resolv_search_domain(void **state)
{
	(void)state;
	/* The last search or domain line wins; domain takes one name */
	assert_int_equal(resolv("search a.example b.example\n"
				"domain c.example d.example\n"), 0);
	assert_int_equal(conf.n_search, 1);
	assert_string_equal(conf.search[0], "c.example");

	assert_int_equal(resolv("domain c.example\n"
				"search a.example\tb.example\n"), 0);
	assert_int_equal(conf.n_search, 2);
	assert_string_equal(conf.search[0], "a.example");
	assert_string_equal(conf.search[1], "b.example");

	assert_int_equal(resolv("search\n"), 0);
	assert_int_equal(conf.n_search, 0);
	assert_int_equal(conf.n_dns4 + conf.n_dns6, 0);

	assert_int_equal(resolv(""), 0);
	assert_int_equal(conf.n_search, 0);
}

static void test_resolv_long_lines(void **state)
{
	char text[2048], name[CONF_SEARCH_LEN + 2];

	(void)state;
	/* The tail of an overlong line must not be read as a line */
	memset(text, ' ', sizeof(text));
	text[0] = '#';
	strcpy(text + 510, "nameserver 198.51.100.9\n"
			   "nameserver 198.51.100.1\n");
	assert_int_equal(resolv(text), 0);
	assert_int_equal(conf.n_dns4, 1);
	assert_dns4(0, "198.51.100.1");

	memset(text, 'a', 1500);
	strcpy(text + 1500, "\nnameserver 198.51.100.2\n");
	assert_int_equal(resolv(text), 0);
	assert_int_equal(conf.n_dns4, 1);
	assert_dns4(0, "198.51.100.2");

	/* A domain name longer than a DNS name is skipped */
	memset(name, 'b', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(text, sizeof(text), "search x.example %s y.example\n", name);
	assert_int_equal(resolv(text), 0);
	assert_int_equal(conf.n_search, 2);
	assert_string_equal(conf.search[1], "y.example");

	/* Longest accepted domain fits, with its terminator */
	name[CONF_SEARCH_LEN] = '\0';
	snprintf(text, sizeof(text), "search %s\n", name);
	assert_int_equal(resolv(text), 0);
	assert_int_equal(conf.n_search, 1);
	assert_int_equal(strlen(conf.search[0]), CONF_SEARCH_LEN);
}

static void test_resolv_too_many(void **state)
{
	char text[1024] = "search";
	int i;

	(void)state;
	for (i = 0; i < CONF_MAX_SEARCH + 2; i++)
		sprintf(text + strlen(text), " d%d.example", i);
	strcat(text, "\n");
	for (i = 0; i < CONF_MAX_DNS + 2; i++) {
		sprintf(text + strlen(text), "nameserver 198.51.100.%d\n"
			"nameserver 2001:db8::%d\n", i + 1, i + 1);
	}
	assert_int_equal(resolv(text), 0);
	assert_int_equal(conf.n_search, CONF_MAX_SEARCH);
	assert_string_equal(conf.search[CONF_MAX_SEARCH - 1], "d5.example");
	assert_int_equal(conf.n_dns4, CONF_MAX_DNS);
	assert_int_equal(conf.n_dns6, CONF_MAX_DNS);
	assert_dns4(CONF_MAX_DNS - 1, "198.51.100.4");
	assert_dns6(CONF_MAX_DNS - 1, "2001:db8::4");
}

static void test_resolv_missing(void **state)
{
	(void)state;
	assert_int_equal(resolv_read(&conf, "/nonexistent/resolv.conf"),
			 -1);
	assert_int_equal(errno, ENOENT);
}

/**
 * parse() - run conf_parse() on a copy of @argv into conf
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: conf_parse()'s return value
 */
static int parse(int argc, const char *const *argv)
{
	/* Static: the configuration keeps pointers into it (the command
	 * after "--"), as it does into main()'s argv
	 */
	static char *args[64];
	int i;

	assert_true(argc < 64);
	for (i = 0; i < argc; i++)
		args[i] = (char *)argv[i];
	args[argc] = NULL;
	return conf_parse(&conf, argc, args);
}

static void test_parse_v4(void **state)
{
	const char *argv[] = { BASE4 };
	char buf[INET_ADDRSTRLEN];

	(void)state;
	assert_int_equal(parse(ARGC(argv), argv), 0);
	assert_string_equal(conf.sock_path, "/tmp/netshim-unit.socket");
	assert_true(conf.v4);
	assert_false(conf.v6);
	assert_string_equal(inet_ntop(AF_INET, &conf.addr4, buf, sizeof(buf)),
			    "203.0.113.2");
	assert_string_equal(inet_ntop(AF_INET, &conf.gw4, buf, sizeof(buf)),
			    "203.0.113.1");
	assert_int_equal(conf.prefix4, 24);
	assert_int_equal(conf.n_dns4, 1);
	assert_dns4(0, "203.0.113.1");
	assert_int_equal(conf.n_dns6, 0);
	assert_int_equal(conf.n_search, 1);
	assert_string_equal(conf.search[0], "example.com");
	assert_string_equal(conf.ifname, "");

	/* Defaults */
	assert_int_equal(conf.mtu, 65520);
	assert_memory_equal(conf.our_mac, "\x02nshim", 6);
	assert_false(conf.guest_mac_set);
	assert_int_equal(conf.max_tcp, 65536);
	assert_int_equal(conf.max_flows, 16384);
	assert_int_equal(conf.udp_timeout, 180);
	assert_int_equal(conf.ra_interval, 60);
	assert_false(conf.one_off || conf.foreground || conf.quiet ||
		     conf.debug || conf.runas_set);
	assert_false(conf.no_dhcp || conf.no_dhcpv6 || conf.no_ndp ||
		     conf.no_ra);
	assert_false(conf.map_host_lo4 || conf.map_host_lo6);
	assert_int_equal(conf.tcp_fwd.n + conf.udp_fwd.n, 0);
	assert_false(conf.tcp_fwd.all || conf.udp_fwd.all);
	assert_string_equal(conf.pid_file, "");
	assert_string_equal(conf.log_file, "");
	assert_string_equal(conf.pcap_file, "");
}

static void test_parse_v6(void **state)
{
	const char *ll[] = { "netshim", "-s", "/tmp/x.sock", "-6",
			     "-a", "2001:db8::2/64", "-g", "fe80::1",
			     "-D", "2001:db8::53", "-S", "none" };
	const char *global[] = { "netshim", "-s", "/tmp/x.sock", "-6",
				 "--address", "2001:db8::2",
				 "--gateway=2001:db8::1", "--dns", "none",
				 "--search", "none" };
	char buf[INET6_ADDRSTRLEN];

	(void)state;
	assert_int_equal(parse(ARGC(ll), ll), 0);
	assert_false(conf.v4);
	assert_true(conf.v6);
	assert_int_equal(conf.prefix6, 64);
	assert_string_equal(inet_ntop(AF_INET6, &conf.our_ll6, buf,
				      sizeof(buf)), "fe80::1");
	assert_int_equal(conf.n_dns6, 1);
	assert_dns6(0, "2001:db8::53");
	assert_int_equal(conf.n_search, 0);

	/* Global gateway: our link-local is the EUI-64 of our MAC */
	assert_int_equal(parse(ARGC(global), global), 0);
	assert_int_equal(conf.prefix6, 64);
	assert_string_equal(inet_ntop(AF_INET6, &conf.gw6, buf, sizeof(buf)),
			    "2001:db8::1");
	assert_string_equal(inet_ntop(AF_INET6, &conf.our_ll6, buf,
				      sizeof(buf)), "fe80::6e:73ff:fe68:696d");
	assert_int_equal(conf.n_dns4 + conf.n_dns6, 0);
	assert_int_equal(conf.n_search, 0);
}

static void test_parse_dual(void **state)
{
	const char *argv[] = { "netshim", "-s", "/tmp/x.sock",
			       "-a", "203.0.113.2", "-n", "255.255.255.0",
			       "-g", "203.0.113.1", "-a", "2001:db8::2/48",
			       "-g", "fe80::1", "-D", "203.0.113.1",
			       "-D", "2001:db8::53", "-D", "198.51.100.53",
			       "-S", "a.example,b.example c.example" };

	(void)state;
	assert_int_equal(parse(ARGC(argv), argv), 0);
	assert_true(conf.v4);
	assert_true(conf.v6);
	assert_int_equal(conf.prefix4, 24);
	assert_int_equal(conf.prefix6, 48);
	assert_int_equal(conf.n_dns4, 2);
	assert_dns4(1, "198.51.100.53");
	assert_int_equal(conf.n_dns6, 1);
	assert_int_equal(conf.n_search, 3);
	assert_string_equal(conf.search[2], "c.example");
}

static void test_parse_all_options(void **state)
{
	const char *argv[] = {
		BASE4, "-1", "-P", "/tmp/netshim.pid", "-f", "-q", "-d",
		"-l", "/tmp/netshim.log", "-p", "/tmp/netshim.pcap",
		"--runas", "0:0", "-M", "52:54:00:12:34:56", "-m", "1500",
		"-t", "80,8080:80", "-t", "~22", "-u", "all",
		"--map-host-loopback", "203.0.113.3",
		"--map-host-loopback", "2001:db8::3",
		"--no-dhcp", "--no-dhcpv6", "--no-ndp", "--no-ra",
		"--max-tcp", "1024", "--max-flows", "2048",
		"--udp-timeout", "30", "--ra-interval", "4",
	};

	(void)state;
	assert_int_equal(parse(ARGC(argv), argv), 0);
	assert_true(conf.one_off && conf.foreground && conf.quiet &&
		    conf.debug);
	assert_string_equal(conf.pid_file, "/tmp/netshim.pid");
	assert_string_equal(conf.log_file, "/tmp/netshim.log");
	assert_string_equal(conf.pcap_file, "/tmp/netshim.pcap");
	assert_true(conf.runas_set);
	assert_int_equal(conf.uid, 0);
	assert_int_equal(conf.gid, 0);
	assert_true(conf.guest_mac_set);
	assert_memory_equal(conf.guest_mac, "\x52\x54\x00\x12\x34\x56", 6);
	assert_int_equal(conf.mtu, 1500);
	assert_int_equal(conf.tcp_fwd.n, 3);
	assert_int_equal(fwd_to(&conf.tcp_fwd, 8080), 80);
	assert_int_equal(fwd_to(&conf.tcp_fwd, 22), 0);
	assert_int_equal(fwd_to(&conf.tcp_fwd, 443), 0);
	assert_true(conf.udp_fwd.all);
	assert_true(conf.map_host_lo4 && conf.map_host_lo6);
	assert_int_equal(ntohl(conf.host_lo4.s_addr), 0xcb007103);
	assert_int_equal(conf.host_lo6.s6_addr[15], 3);
	assert_true(conf.no_dhcp && conf.no_dhcpv6 && conf.no_ndp &&
		    conf.no_ra);
	assert_int_equal(conf.max_tcp, 1024);
	assert_int_equal(conf.max_flows, 2048);
	assert_int_equal(conf.udp_timeout, 30);
	assert_int_equal(conf.ra_interval, 4);
}

/* passt's options as libvirt, KubeVirt and QEMU pass them */
static void test_parse_passt_options(void **state)
{
	const char *argv[] = {
		BASE4, "--trace", "-e", "--log-size", "65536",
		"-H", "vm1", "--fqdn", "vm1.netshim.test.",
		"-o", "203.0.113.9", "--outbound", "2001:db8::9",
		"--outbound-if4", "lo", "--outbound-if6", "lo",
		"--no-udp", "--no-icmp", "--freebind", "--chroot-fallback",
		"-t", "203.0.113.2%lo/80", "-t", "%lo/81:8081",
		"--socket-path", "/tmp/netshim-unit2.socket",
		"--no-dhcp-dns", "--dhcp-dns", "--no-dhcp-search",
		"--map-gw", "--no-map-gw", "--map-gw",
	};
	char buf[INET6_ADDRSTRLEN];

	(void)state;
	assert_int_equal(parse(ARGC(argv), argv), 0);
	assert_true(conf.trace && conf.debug && conf.log_stderr);
	assert_int_equal(conf.log_size, 65536);
	assert_string_equal(conf.hostname, "vm1");
	assert_string_equal(conf.fqdn, "vm1.netshim.test.");
	assert_true(conf.out4_set && conf.out6_set);
	assert_string_equal(inet_ntop(AF_INET, &conf.out4, buf, sizeof(buf)),
			    "203.0.113.9");
	assert_string_equal(inet_ntop(AF_INET6, &conf.out6, buf, sizeof(buf)),
			    "2001:db8::9");
	assert_string_equal(conf.out_if4, "lo");
	assert_string_equal(conf.out_if6, "lo");
	/* Without -i, the outbound interface is the template */
	assert_string_equal(conf.ifname, "lo");
	assert_true(conf.no_udp && conf.no_icmp && !conf.no_tcp);
	assert_true(conf.freebind && conf.chroot_fallback);
	assert_int_equal(conf.tcp_fwd.n, 2);
	assert_string_equal(conf.tcp_fwd.rule[0].bind, "203.0.113.2");
	assert_string_equal(conf.tcp_fwd.rule[0].dev, "lo");
	assert_string_equal(conf.tcp_fwd.rule[1].bind, "");
	assert_string_equal(conf.tcp_fwd.rule[1].dev, "lo");
	assert_int_equal(fwd_to(&conf.tcp_fwd, 81), 8081);
	assert_string_equal(conf.sock_path, "/tmp/netshim-unit2.socket");
	/* --dhcp-dns cancelled --no-dhcp-dns; the search list is dropped */
	assert_int_equal(conf.n_dns4, 1);
	assert_int_equal(conf.n_search, 0);
	/* --map-gw, last: the IPv4 gateway stands for the pod's loopback */
	assert_true(conf.map_host_lo4);
	assert_int_equal(conf.host_lo4.s_addr, conf.gw4.s_addr);
	assert_int_equal(conf.vmm_fd, -1);
}

/* --map-gw leaves a family --map-host-loopback mapped alone, and maps
 * the IPv6 gateway, link-local or not, as passt does; without it nothing
 * is mapped
 */
static void test_parse_map_gw(void **state)
{
	const char *argv[] = { "netshim", "-s", "/tmp/netshim-unit.socket",
			       "-a", "203.0.113.2/24", "-g", "203.0.113.1",
			       "-a", "2001:db8:1::2", "-g", "fe80::1",
			       "-D", "203.0.113.1", "-S", "none",
			       "--map-host-loopback", "203.0.113.7",
			       "--map-gw" };
	const char *global6[] = { "netshim", "-s", "/tmp/netshim-unit.socket",
				  "-6", "-a", "2001:db8:1::2",
				  "-g", "2001:db8:1::1", "-D", "2001:db8:1::1",
				  "-S", "none", "--map-gw" };
	const char *none[] = { BASE4, "--map-host-loopback", "203.0.113.7",
			       "--map-host-loopback", "none" };
	const char *plain[] = { BASE4, "--no-map-gw" };
	char buf[INET6_ADDRSTRLEN];

	(void)state;
	assert_int_equal(parse(ARGC(argv), argv), 0);
	assert_string_equal(inet_ntop(AF_INET, &conf.host_lo4, buf,
				      sizeof(buf)), "203.0.113.7");
	assert_true(conf.map_host_lo6);
	assert_string_equal(inet_ntop(AF_INET6, &conf.host_lo6, buf,
				      sizeof(buf)), "fe80::1");

	assert_int_equal(parse(ARGC(global6), global6), 0);
	assert_true(conf.map_host_lo6);
	assert_string_equal(inet_ntop(AF_INET6, &conf.host_lo6, buf,
				      sizeof(buf)), "2001:db8:1::1");

	assert_int_equal(parse(ARGC(none), none), 0);
	assert_false(conf.map_host_lo4 || conf.map_host_lo6);
	assert_int_equal(parse(ARGC(plain), plain), 0);
	assert_false(conf.map_host_lo4 || conf.map_host_lo6);
}

/* -F: a connected stream socket, no listening socket, one-off */
/* --upgrade and --upgrade-path: where a successor takes over, and what
 * the one taking over needs of its command line
 */
static void test_parse_upgrade(void **state)
{
	const char *plain[] = { BASE4 };
	const char *named[] = { BASE4, "--upgrade-path", "/tmp/u.sock" };
	const char *take[] = { BASE4, "--upgrade" };
	const char *take_nosock[] = { "netshim", "-4", "-a", "203.0.113.2/24",
				      "-g", "203.0.113.1", "--upgrade" };
	const char *take_path[] = { "netshim", "-4", "-a", "203.0.113.2/24",
				    "-g", "203.0.113.1", "--upgrade-path",
				    "/tmp/u.sock", "--upgrade" };
	char num[16];
	const char *give_fd[] = { "netshim", "-4", "-a", "203.0.113.2/24",
				  "-g", "203.0.113.1", "--upgrade-path",
				  "/tmp/u.sock", "--fd", num };
	const char *take_fd[] = { "netshim", "-4", "-a", "203.0.113.2/24",
				  "-g", "203.0.113.1", "--upgrade-path",
				  "/tmp/u.sock", "--fd", num, "--upgrade" };
	int sv[2];
	const char *cmd[] = { NSBASE4, "--upgrade-path", "/tmp/u.sock", "--",
			      "true" };
	const char *cmd_take[] = { NSBASE4, "--upgrade", "--", "true" };
	const char *empty[] = { BASE4, "--upgrade-path", "" };

	(void)state;
	/* Next to the socket by default, as passt puts its repair helper's */
	assert_int_equal(parse(ARGC(plain), plain), 0);
	assert_string_equal(conf.upgrade_path,
			    "/tmp/netshim-unit.socket.upgrade");
	assert_false(conf.upgrade);
	assert_int_equal(parse(ARGC(named), named), 0);
	assert_string_equal(conf.upgrade_path, "/tmp/u.sock");
	assert_int_equal(parse(ARGC(take), take), 0);
	assert_true(conf.upgrade);
	assert_string_equal(conf.upgrade_path,
			    "/tmp/netshim-unit.socket.upgrade");
	/* A default socket path is a free one, never the running one's */
	assert_int_equal(parse(ARGC(take_nosock), take_nosock), -1);
	assert_int_equal(parse(ARGC(take_path), take_path), 0);
	assert_string_equal(conf.sock_path, "");
	/* The connection comes from the running netshim, not from --fd */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	snprintf(num, sizeof(num), "%d", sv[1]);
	assert_int_equal(parse(ARGC(give_fd), give_fd), 0);
	assert_string_equal(conf.upgrade_path, "/tmp/u.sock");
	assert_int_equal(parse(ARGC(take_fd), take_fd), -1);
	close(sv[0]);
	close(sv[1]);
	/* A command netshim starts ends with it: no upgrade */
	assert_int_equal(parse(ARGC(cmd), cmd), -1);
	assert_int_equal(parse(ARGC(cmd_take), cmd_take), -1);
	assert_int_equal(parse(ARGC(empty), empty), -1);
}

static void test_parse_fd(void **state)
{
	char num[16], dgram_num[16], file_num[16];
	const char *argv[] = { "netshim", "-4", "-a", "203.0.113.2/24", "-g",
			       "203.0.113.1", "-D", "203.0.113.1",
			       "--fd", num };
	const char *with_sock[] = { BASE4, "--fd", num };
	const char *dgram[] = { "netshim", "-4", "-a", "203.0.113.2/24", "-g",
				"203.0.113.1", "-F", dgram_num };
	const char *file[] = { "netshim", "-4", "-a", "203.0.113.2/24", "-g",
			       "203.0.113.1", "-F", file_num };
	char listen_num[16];
	const char *listening[] = { "netshim", "-4", "-a", "203.0.113.2/24",
				    "-g", "203.0.113.1", "-F", listen_num };
	int sv[2], dv[2], fd, ls;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, dv), 0);
	fd = open("/dev/null", O_RDONLY);
	assert_true(fd > 2);
	snprintf(num, sizeof(num), "%d", sv[1]);
	snprintf(dgram_num, sizeof(dgram_num), "%d", dv[1]);
	snprintf(file_num, sizeof(file_num), "%d", fd);

	assert_int_equal(parse(ARGC(argv), argv), 0);
	assert_int_equal(conf.vmm_fd, sv[1]);
	assert_true(conf.one_off);
	assert_string_equal(conf.sock_path, "");

	assert_int_equal(parse(ARGC(with_sock), with_sock), -1);
	assert_int_equal(parse(ARGC(dgram), dgram), -1);
	assert_int_equal(parse(ARGC(file), file), -1);
	close(fd);
	assert_int_equal(parse(ARGC(file), file), -1);
	/* Listening, not connected: bound to a name Linux picks (autobind:
	 * an address of the family alone)
	 */
	ls = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(ls > 2);
	assert_int_equal(bind(ls, (struct sockaddr *)&(sa_family_t){ AF_UNIX },
			      sizeof(sa_family_t)), 0);
	assert_int_equal(listen(ls, 1), 0);
	snprintf(listen_num, sizeof(listen_num), "%d", ls);
	assert_int_equal(parse(ARGC(listening), listening), -1);
	close(ls);
	close(sv[0]);
	close(sv[1]);
	close(dv[0]);
	close(dv[1]);
}

/**
 * parse_stderr() - conf_parse() with its stderr captured
 * @argc:	argument count
 * @argv:	arguments
 * @err:	what it printed on stderr, output
 * @size:	size of @err
 *
 * Return: conf_parse()'s return value
 */
static int parse_stderr(int argc, const char *const *argv, char *err,
			size_t size)
{
	int pipefd[2], saved, rc;
	ssize_t n;

	assert_int_equal(pipe(pipefd), 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(pipefd[1], STDERR_FILENO);
	close(pipefd[1]);
	rc = parse(argc, argv);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = read(pipefd[0], err, size - 1);
	err[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	return rc;
}

/* --connect: the VMM listens at -s; refused without -s, with -F, in
 * namespace mode; --connect-timeout only with it, 0 to 86400, 60 by default
 */
static void test_parse_connect(void **state)
{
	char num[16], err[1024];
	const char *plain[] = { BASE4 };
	const char *on[] = { BASE4, "--connect" };
	const char *timed[] = { BASE4, "--connect", "--connect-timeout", "0" };
	const char *no_sock[] = { "netshim", "-4", "-a", "203.0.113.2/24",
				  "-g", "203.0.113.1", "--connect" };
	const char *with_fd[] = { "netshim", "-4", "-a", "203.0.113.2/24",
				  "-g", "203.0.113.1", "--connect", "-F", num };
	const char *ns[] = { NSBASE4, "--connect", "--", "true" };
	const char *alone[] = { BASE4, "--connect-timeout", "5" };
	const char *big[] = { BASE4, "--connect", "--connect-timeout",
			      "86401" };
	int sv[2];

	(void)state;
	assert_int_equal(parse(ARGC(plain), plain), 0);
	assert_false(conf.vmm_connect);
	assert_int_equal(parse(ARGC(on), on), 0);
	assert_true(conf.vmm_connect);
	assert_int_equal(conf.connect_timeout, 60);
	assert_false(conf.one_off);
	assert_string_equal(conf.sock_path, "/tmp/netshim-unit.socket");
	assert_int_equal(parse(ARGC(timed), timed), 0);
	assert_int_equal(conf.connect_timeout, 0);

	assert_int_equal(parse_stderr(ARGC(no_sock), no_sock, err,
				      sizeof(err)), -1);
	assert_non_null(strstr(err, "--connect needs -s"));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	snprintf(num, sizeof(num), "%d", sv[1]);
	assert_int_equal(parse_stderr(ARGC(with_fd), with_fd, err,
				      sizeof(err)), -1);
	assert_non_null(strstr(err, "--connect and --fd"));
	close(sv[0]);
	close(sv[1]);
	assert_int_equal(parse_stderr(ARGC(ns), ns, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--connect is for a VMM"));
	assert_int_equal(parse_stderr(ARGC(alone), alone, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "--connect-timeout is for --connect"));
	assert_int_equal(parse_stderr(ARGC(big), big, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "connect-timeout"));
}

/* Every passt option netshim lacks is refused, naming itself and why */
static void test_parse_passt_refused(void **state)
{
	static const char *const refused[][3] = {
		{ "--stats", "5", "SIGUSR1" },
		{ "--splice-only", NULL, "namespace mode" },
		{ "--dns-forward", "203.0.113.5", "does not redirect DNS" },
		{ "--dns-host", "203.0.113.1", "does not redirect DNS" },
		{ "--map-guest-addr", "203.0.113.5", "not supported" },
		{ "--no-splice", NULL, "namespace mode" },
	};
	char err[1024], name[64];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		const char *argv[] = { BASE4, refused[i][0], refused[i][1] };
		int argc = ARGC(argv) - !refused[i][1];

		if (parse_stderr(argc, argv, err, sizeof(err)) != -1)
			fail_msg("%s accepted", refused[i][0]);
		snprintf(name, sizeof(name), "%s:", refused[i][0]);
		if (!strstr(err, name) || !strstr(err, refused[i][2]))
			fail_msg("%s: message '%s'", refused[i][0], err);
	}
}

/* Bad values of the new options: refused, the option named */
/* --bpf takes exactly its three modes, auto by default */
static void test_parse_bpf(void **state)
{
	static const char *const modes[] = { "off", "require", "auto" };
	static const enum conf_bpf want[] = {
		CONF_BPF_OFF, CONF_BPF_REQUIRE, CONF_BPF_AUTO
	};
	const char *plain[] = { BASE4 };
	unsigned int i;

	(void)state;
	assert_int_equal(parse(ARGC(plain), plain), 0);
	assert_int_equal(conf.bpf, CONF_BPF_AUTO);
	for (i = 0; i < 3; i++) {
		const char *argv[] = { BASE4, "--bpf", modes[i] };

		assert_int_equal(parse(ARGC(argv), argv), 0);
		assert_int_equal(conf.bpf, want[i]);
	}
}

static void test_parse_passt_bad_values(void **state)
{
	static const char *const bad[][3] = {
		{ "--hostname", "", "hostname" },
		{ "-H", "a..b", "hostname" },
		{ "-H", "a b", "hostname" },
		{ "--fqdn", ".x", "fqdn" },
		{ "--fqdn", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.y",
		  "fqdn" },
		{ "-o", "127.0.0.1", "outbound" },
		{ "-o", "fe80::1", "outbound" },
		{ "-o", "bogus", "outbound" },
		{ "--outbound-if4", "no-such-if0", "outbound-if4" },
		{ "--outbound-if6", "", "outbound-if6" },
		{ "--log-size", "4095", "log-size" },
		{ "--log-size", "x", "log-size" },
		{ "-F", "2", "fd" },
		{ "--fd", "x", "fd" },
		{ "--fd", "999999", "fd" },
		{ "-t", "%/80", "port spec" },
		{ "-t", "bogus%lo/80", "port spec" },
		{ "--no-map-gw=1", NULL, "no-map-gw" },
		{ "--map-host-loopback", "nonex", "map-host-loopback" },
		{ "--bpf", "yes", "--bpf" },
		{ "--bpf", "", "--bpf" },
	};
	char err[1024];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *argv[] = { BASE4, bad[i][0], bad[i][1] };
		int argc = ARGC(argv) - !bad[i][1];

		if (parse_stderr(argc, argv, err, sizeof(err)) != -1)
			fail_msg("%s %s accepted", bad[i][0], bad[i][1]);
		if (!strstr(err, bad[i][2]))
			fail_msg("%s: message '%s'", bad[i][0], err);
	}
}

/* A protocol disabled cannot be forwarded; flags alone are fine */
static void test_parse_no_proto(void **state)
{
	const char *tcp[] = { BASE4, "--no-tcp", "-t", "80" };
	const char *udp[] = { BASE4, "-u", "all", "--no-udp" };
	const char *none[] = { BASE4, "--no-tcp", "-t", "80", "-t", "none",
			       "--no-udp", "--no-icmp" };
	char err[1024];

	(void)state;
	assert_int_equal(parse_stderr(ARGC(tcp), tcp, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--no-tcp"));
	assert_int_equal(parse_stderr(ARGC(udp), udp, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--no-udp"));
	assert_int_equal(parse(ARGC(none), none), 0);
	assert_true(conf.no_tcp && conf.no_udp && conf.no_icmp);
}

static void test_parse_later_wins(void **state)
{
	const char *argv[] = { BASE4, "-m", "1500", "--mtu", "9000",
			       "-a", "203.0.113.4", "-n", "16", "-S",
			       "x.example", "--max-tcp=5", "--max-tcp", "6" };

	(void)state;
	assert_int_equal(parse(ARGC(argv), argv), 0);
	assert_int_equal(conf.mtu, 9000);
	assert_int_equal(ntohl(conf.addr4.s_addr), 0xcb007104);
	assert_int_equal(conf.prefix4, 16);
	assert_int_equal(conf.n_search, 1);
	assert_string_equal(conf.search[0], "x.example");
	assert_int_equal(conf.max_tcp, 6);
}

static void test_parse_limits(void **state)
{
	const char *argv[] = { BASE4, "-m", "68", "--max-tcp", "1048576",
			       "--max-flows", "1", "--udp-timeout", "86400",
			       "--ra-interval", "1800", "-D", "198.51.100.2",
			       "-D", "198.51.100.3", "-D", "198.51.100.4",
			       "-S", "a b c d e f", "-n", "0" };

	(void)state;
	assert_int_equal(parse(ARGC(argv), argv), 0);
	assert_int_equal(conf.mtu, 68);
	assert_int_equal(conf.max_tcp, 1048576);
	assert_int_equal(conf.max_flows, 1);
	assert_int_equal(conf.udp_timeout, 86400);
	assert_int_equal(conf.ra_interval, 1800);
	assert_int_equal(conf.n_dns4, CONF_MAX_DNS);
	assert_int_equal(conf.n_search, CONF_MAX_SEARCH);
	assert_int_equal(conf.prefix4, 0);
}

static void test_parse_runas_names(void **state)
{
	const char *byname[] = { BASE4, "--runas", "nobody" };
	const char *both[] = { BASE4, "--runas", "root:nogroup" };
	const char *number[] = { BASE4, "--runas", "4242" };

	(void)state;
	if (!getpwnam("nobody") || !getgrnam("nogroup"))
		skip();
	assert_int_equal(parse(ARGC(byname), byname), 0);
	assert_int_equal(conf.uid, getpwnam("nobody")->pw_uid);
	assert_int_equal(conf.gid, getpwnam("nobody")->pw_gid);
	assert_int_equal(parse(ARGC(both), both), 0);
	assert_int_equal(conf.uid, 0);
	assert_int_equal(conf.gid, getgrnam("nogroup")->gr_gid);

	/* A user the passwd database does not know gets its own number */
	if (getpwuid(4242))
		skip();
	assert_int_equal(parse(ARGC(number), number), 0);
	assert_int_equal(conf.uid, 4242);
	assert_int_equal(conf.gid, 4242);
}

static void test_parse_sock_default(void **state)
{
	const char *argv[] = { "netshim", "-4", "-a", "203.0.113.2", "-n",
			       "24", "-g", "203.0.113.1", "-D", "none", "-S",
			       "none" };
	char dir[] = "/tmp/netshim-xdg-XXXXXX", path[128];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("XDG_RUNTIME_DIR", dir, 1);

	assert_int_equal(parse(ARGC(argv), argv), 0);
	snprintf(path, sizeof(path), "%s/netshim-1.socket", dir);
	assert_string_equal(conf.sock_path, path);

	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(parse(ARGC(argv), argv), 0);
	snprintf(path, sizeof(path), "%s/netshim-2.socket", dir);
	assert_string_equal(conf.sock_path, path);

	/* Not writable: /tmp instead */
	assert_int_equal(chmod(dir, 0500), 0);
	if (!access(dir, W_OK)) {
		/* root writes anywhere: point at a missing directory */
		setenv("XDG_RUNTIME_DIR", "/nonexistent-netshim", 1);
	}
	assert_int_equal(parse(ARGC(argv), argv), 0);
	assert_int_equal(strncmp(conf.sock_path, "/tmp/netshim-", 13), 0);

	unsetenv("XDG_RUNTIME_DIR");
	snprintf(path, sizeof(path), "%s/netshim-1.socket", dir);
	unlink(path);
	chmod(dir, 0700);
	rmdir(dir);
}

/**
 * assert_refused() - conf_parse() must refuse BASE4 plus two arguments
 * @opt:	option, or any argument
 * @arg:	its value, or NULL for none
 */
static void assert_refused(const char *opt, const char *arg)
{
	const char *argv[] = { BASE4, opt, arg };
	int argc = ARGC(argv) - !arg;

	if (parse(argc, argv) != -1)
		fail_msg("'%s %s' accepted", opt, arg ? arg : "");
}

static void test_parse_refused(void **state)
{
	static const char *const bad[][2] = {
		{ "--mtu", "abc" }, { "--mtu", "67" }, { "--mtu", "65521" },
		{ "--mtu", "12x" }, { "--mtu", "-1" }, { "--mtu", "" },
		{ "-m", " 1500" }, { "-m", "+1500" }, { "-m", "0x500" },
		{ "-m", "99999999999999999999999" },
		{ "-n", "33" }, { "-n", "255.0.255.0" }, { "-n", "x" },
		{ "-a", "bogus" }, { "-a", "0.0.0.0" }, { "-a", "224.0.0.1" },
		{ "-a", "255.255.255.255" }, { "-a", "127.0.0.1" },
		{ "-a", "203.0.113.2/33" }, { "-a", "2001:db8::2/129" },
		{ "-a", "203.0.113.2/x" }, { "-a", "fe80::2" },
		{ "-a", "::1" }, { "-a", "::" }, { "-a", "ff02::1" },
		{ "-g", "bogus" }, { "-g", "0.0.0.0" }, { "-g", "ff02::2" },
		{ "-g", "203.0.113.2" },
		{ "-D", "bogus" }, { "-D", "127.0.0.53" }, { "-D", "::1" },
		{ "-D", "0.0.0.0" },
		{ "-S", "a b c d e f g" }, { "-S", "" }, { "-S", " , " },
		{ "-M", "bogus" }, { "-M", "01:00:00:00:00:00" },
		{ "-M", "00:00:00:00:00:00" }, { "-M", "02:00:00:00:00:0g" },
		{ "-M", "02:00:00:00:00" }, { "-M", "02-00-00-00-00-01" },
		{ "-M", "02:00:00:00:00:01:" },
		{ "-t", "0" }, { "-t", "1-2:3" }, { "-u", "70000" },
		{ "-u", "~x" },
		{ "--max-tcp", "0" }, { "--max-tcp", "1048577" },
		{ "--max-flows", "x" }, { "--max-flows", "0" },
		{ "--udp-timeout", "0" }, { "--udp-timeout", "86401" },
		{ "--ra-interval", "3" }, { "--ra-interval", "1801" },
		{ "--runas", "no-such-user-netshim" },
		{ "--runas", "0:no-such-group-netshim" }, { "--runas", "" },
		{ "--runas", "0:" }, { "--runas", ":0" },
		{ "--map-host-loopback", "bogus" },
		{ "--map-host-loopback", "0.0.0.0" },
		{ "-s", "" }, { "-P", "" }, { "-l", "" }, { "-p", "" },
		{ "-i", "an-interface-name-too-long" }, { "-6", NULL },
		{ "--bogus", NULL }, { "-x", NULL }, { "-qx", NULL },
		{ "--bogus=1", NULL }, { "--mtu", NULL }, { "-m", NULL },
		{ "--runas", NULL }, { "extra", NULL }, { "--one-off=1", NULL },
	};
	char longpath[300];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_refused(bad[i][0], bad[i][1]);

	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	assert_refused("-s", longpath);
}

static void test_parse_ns_command(void **state)
{
	const char *const argv[] = { NSBASE4, "-T", "6001:7001", "-U", "53",
				     "--", "sh", "-c", "exit 7" };

	(void)state;
	assert_int_equal(parse(ARGC(argv), argv), 0);
	assert_non_null(conf.ns_cmd);
	assert_string_equal(conf.ns_cmd[0], "sh");
	assert_string_equal(conf.ns_cmd[1], "-c");
	assert_string_equal(conf.ns_cmd[2], "exit 7");
	assert_null(conf.ns_cmd[3]);
	/* pasta's behaviour: the command's status is ours, so no daemon */
	assert_true(conf.foreground);
	/* no VMM socket is made, so none is picked */
	assert_string_equal(conf.sock_path, "");
	assert_int_equal(fwd_to(&conf.tcp_ns_fwd, 6001), 7001);
	assert_int_equal(fwd_to(&conf.udp_ns_fwd, 53), 53);
}

static void test_parse_ns_join(void **state)
{
	const char *const argv[] = { NSBASE4, "--netns", "/run/netns/x",
				     "--ns-ifname", "eth7", "-t", "auto",
				     "-T", "auto", "-U", "auto" };

	(void)state;
	assert_int_equal(parse(ARGC(argv), argv), 0);
	assert_null(conf.ns_cmd);
	assert_string_equal(conf.netns, "/run/netns/x");
	assert_string_equal(conf.ns_ifname, "eth7");
	assert_true(conf.tcp_fwd.follow);
	assert_true(conf.tcp_ns_fwd.follow);
	assert_true(conf.udp_ns_fwd.follow);
	assert_false(conf.foreground);
}

/* pasta's ways to name the namespace: an ip-netns name, a PID or a
 * command without "--", whose own options are its own
 */
static void test_parse_ns_pasta_forms(void **state)
{
	const char *const name[] = { NSBASE4, "--config-net", "--netns",
				     "pod1", "--no-netns-quit",
				     "--ns-mac-addr", "02:00:00:00:00:07" };
	const char *const pid[] = { NSBASE4, "-f", "--netns-only", "4242" };
	const char *const cmd[] = { NSBASE4, "sh", "-c", "exit 7" };
	const char *const both[] = { NSBASE4, "--netns", "pod1", "4242" };
	char err[1024];

	(void)state;
	assert_int_equal(parse(ARGC(name), name), 0);
	assert_string_equal(conf.netns, "/run/netns/pod1");
	assert_true(conf.no_netns_quit);
	assert_true(conf.config_net);
	assert_null(conf.ns_cmd);
	assert_true(conf.guest_mac_set);
	assert_int_equal(conf.guest_mac[5], 7);

	assert_int_equal(parse(ARGC(pid), pid), 0);
	assert_string_equal(conf.netns, "4242");
	assert_false(conf.no_netns_quit);
	assert_true(conf.netns_only);
	assert_null(conf.ns_cmd);

	assert_int_equal(parse(ARGC(cmd), cmd), 0);
	assert_string_equal(conf.netns, "");
	assert_non_null(conf.ns_cmd);
	assert_string_equal(conf.ns_cmd[0], "sh");
	assert_string_equal(conf.ns_cmd[1], "-c");
	assert_string_equal(conf.ns_cmd[2], "exit 7");
	assert_true(conf.foreground);

	assert_int_equal(parse_stderr(ARGC(both), both, err, sizeof(err)), -1);
	if (!strstr(err, "--netns and a PID"))
		fail_msg("--netns and a PID: '%s'", err);
	{
		const char *const vm[] = { BASE4, "stray" };

		assert_int_equal(parse_stderr(ARGC(vm), vm, err, sizeof(err)),
				 -1);
		if (!strstr(err, "unexpected argument 'stray'"))
			fail_msg("a VMM's command line with 'stray': '%s'", err);
	}
	{
		const char *const vm[] = { BASE4, "--no-netns-quit" };

		assert_int_equal(parse_stderr(ARGC(vm), vm, err, sizeof(err)),
				 -1);
		if (!strstr(err, "--no-netns-quit needs --netns"))
			fail_msg("--no-netns-quit for a VM: '%s'", err);
	}
}

/* pasta's short -I for --ns-ifname, and a VMM's --fd has no place here */
static void test_parse_ns_short_and_fd(void **state)
{
	const char *const argv[] = { NSBASE4, "--netns", "/run/netns/x",
				     "-I", "eth8" };
	char num[16], err[1024];
	int sv[2];

	(void)state;
	assert_int_equal(parse(ARGC(argv), argv), 0);
	assert_string_equal(conf.ns_ifname, "eth8");

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	snprintf(num, sizeof(num), "%d", sv[0]);
	{
		const char *const fd[] = { NSBASE4, "--fd", num, "--", "true" };

		assert_int_equal(parse_stderr(ARGC(fd), fd, err, sizeof(err)),
				 -1);
	}
	close(sv[0]);
	close(sv[1]);
	if (!strstr(err, "--fd is for a VMM, not namespace mode"))
		fail_msg("--fd with a command: '%s'", err);
}

static void test_parse_ns_refused(void **state)
{
	static const char *const bad[][5] = {
		{ "-s", "/tmp/x.socket", "--", "true" },
		{ "-1", "--", "true" },
		{ "--vhost-user", "--", "true" },
		{ "--netns", "1", "--", "true" },
		{ "--netns", ".." },
		{ "--netns", "x", "--ns-mac-addr", "02:00:00:00:00" },
		{ "--userns", "/proc/1/ns/user" },
		{ "--netns", "x", "--userns", "/proc/1/ns/user", "--netns-only" },
		{ "--userns", "/proc/1/ns/user", "--", "true" },
		{ "--" },
		{ "-U", "all", "--", "true" },
		{ "-U", "~5", "--", "true" },
		{ "-T", "all", "--", "true" },
		{ "-T", "~5", "--", "true" },
		{ "-U", "all" },
		{ "--userns", "/proc/1/ns/user", "--config-net" },
		{ "--netns-only", "--config-net" },
	};
	const char *const base[] = { NSBASE4 };
	const char *argv[ARGC(base) + 5];
	unsigned int i, j;
	int n;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (n = 0; n < ARGC(base); n++)
			argv[n] = base[n];
		for (j = 0; j < 5 && bad[i][j]; j++)
			argv[n++] = bad[i][j];
		if (!parse(n, argv))
			fail_msg("accepted: %s %s %s", bad[i][0],
				 bad[i][1] ? bad[i][1] : "",
				 bad[i][2] ? bad[i][2] : "");
	}
}

/* pasta's options without a command: the user's shell, as a login shell,
 * in a new namespace; with a VMM's options they are still refused
 */
static void test_parse_ns_shell(void **state)
{
	static const char *const ns[][3] = {
		{ "--config-net" },
		{ "--host-lo-to-ns-lo" },
		{ "--ns-mac-addr", "02:00:00:00:00:01" },
		{ "--ns-ifname", "eth7" },
		{ "--no-copy-routes" },
		{ "--no-copy-addrs" },
		{ "-u", "auto" },
		{ "-T", "5" },
		{ "-T", "auto" },
		{ "-U", "auto" },
	};
	const char *const base[] = { NSBASE4 };
	const char *argv[ARGC(base) + 3];
	char err[1024];
	unsigned int i, j;
	int n;

	(void)state;
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		for (n = 0; n < ARGC(base); n++)
			argv[n] = base[n];
		for (j = 0; j < 3 && ns[i][j]; j++)
			argv[n++] = ns[i][j];

		assert_int_equal(setenv("SHELL", "/bin/unit-shell", 1), 0);
		if (parse(n, argv))
			fail_msg("refused: %s", ns[i][0]);
		assert_non_null(conf.ns_cmd);
		assert_true(conf.ns_shell);
		assert_string_equal(conf.ns_cmd[0], "/bin/unit-shell");
		assert_null(conf.ns_cmd[1]);
		assert_true(conf.foreground);
		assert_string_equal(conf.sock_path, "");

		assert_int_equal(unsetenv("SHELL"), 0);
		assert_int_equal(parse(n, argv), 0);
		assert_string_equal(conf.ns_cmd[0], "/bin/sh");
	}

	/* A command is run as given, never as a shell */
	{
		const char *const cmd[] = { NSBASE4, "--config-net", "--",
					    "true" };

		assert_int_equal(parse(ARGC(cmd), cmd), 0);
		assert_false(conf.ns_shell);
		assert_string_equal(conf.ns_cmd[0], "true");
	}
	/* A VMM's command line keeps its meaning */
	{
		const char *const vm[] = { BASE4, "--config-net" };

		assert_int_equal(parse_stderr(ARGC(vm), vm, err, sizeof(err)),
				 -1);
		if (!strstr(err, "--config-net needs --netns"))
			fail_msg("--config-net for a VM: '%s'", err);
	}
}

/* --config-net copies every address and route of the template, as
 * pasta's, unless --no-copy-addrs, --no-copy-routes, or -a and -g for
 * a family
 */
static void test_parse_ns_copy(void **state)
{
	const char *const given[] = { NSBASE4, "--config-net", "--", "true" };
	const char *const none[] = { NSBASE4, "--config-net",
				     "--no-copy-routes", "--no-copy-addrs",
				     "--", "true" };

	(void)state;
	/* NSBASE4 gives -a and -g for IPv4, none for IPv6 */
	assert_int_equal(parse(ARGC(given), given), 0);
	assert_true(conf.config_net);
	assert_false(conf.ns_copy.addrs4 || conf.ns_copy.routes4);
	assert_true(conf.ns_copy.addrs6 && conf.ns_copy.routes6);
	assert_int_equal(conf.ns_copy.n_addr + conf.ns_copy.n_route, 0);

	assert_int_equal(parse(ARGC(none), none), 0);
	assert_false(conf.ns_copy.addrs4 || conf.ns_copy.routes4 ||
		     conf.ns_copy.addrs6 || conf.ns_copy.routes6);
}

/* pasta hands a namespace no DNS servers nor search list unless told:
 * it shares the pod's resolv.conf
 */
static void test_parse_ns_dns(void **state)
{
	const char *const ns[] = { NSBASE4, "--", "true" };
	const char *const ns_dns[] = { NSBASE4, "--dhcp-dns", "--dhcp-search",
				       "--", "true" };
	const char *const vm[] = { BASE4 };
	const char *const vm_no[] = { BASE4, "--no-dhcp-dns",
				      "--no-dhcp-search" };

	(void)state;
	assert_int_equal(parse(ARGC(ns), ns), 0);
	assert_int_equal(conf.n_dns4 + conf.n_dns6 + conf.n_search, 0);
	assert_int_equal(parse(ARGC(ns_dns), ns_dns), 0);
	assert_int_equal(conf.n_dns4, 1);
	assert_int_equal(conf.n_search, 1);
	assert_int_equal(parse(ARGC(vm), vm), 0);
	assert_int_equal(conf.n_dns4, 1);
	assert_int_equal(conf.n_search, 1);
	assert_int_equal(parse(ARGC(vm_no), vm_no), 0);
	assert_int_equal(conf.n_dns4 + conf.n_search, 0);
}

/* -t auto for a VM: every port no pod process listens on (sk_lookup);
 * -u auto has no such meaning for a VM
 */
static void test_parse_t_auto_vm(void **state)
{
	const char *t[] = { BASE4, "-t", "auto", "-t", "~22" };
	const char *u[] = { BASE4, "-u", "auto" };

	(void)state;
	assert_int_equal(parse(ARGC(t), t), 0);
	assert_true(conf.tcp_fwd.follow);
	assert_false(fwdspec_lookup(&conf.tcp_fwd, 22, NULL));
	assert_int_equal(parse(ARGC(u), u), -1);
}

static void test_parse_refused_dns_count(void **state)
{
	const char *v4[] = { BASE4, "-D", "198.51.100.2", "-D",
			     "198.51.100.3", "-D", "198.51.100.4", "-D",
			     "198.51.100.5" };
	const char *v6[] = { BASE4, "-D", "2001:db8::1", "-D", "2001:db8::2",
			     "-D", "2001:db8::3", "-D", "2001:db8::4",
			     "-D", "2001:db8::5" };
	const char *none_then[] = { BASE4, "-D", "none", "-D",
				    "198.51.100.9" };

	(void)state;
	assert_int_equal(parse(ARGC(v4), v4), -1);
	assert_int_equal(parse(ARGC(v6), v6), -1);
	assert_int_equal(parse(ARGC(none_then), none_then), 0);
	assert_int_equal(conf.n_dns4, 1);
	assert_dns4(0, "198.51.100.9");
}

/**
 * run_exiting() - run conf_parse() in a child expected to exit
 * @arg:	the single option given
 * @out:	what the child printed on stdout, output
 * @size:	size of @out
 *
 * Return: the child's exit status, or -1 if it did not exit
 */
static int run_exiting(const char *arg, char *out, size_t size)
{
	const char *argv[] = { "netshim", arg };
	int pipefd[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		parse(ARGC(argv), argv);
		_exit(99);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_parse_help_version(void **state)
{
	static char out[16384];

	(void)state;
	assert_int_equal(run_exiting("--help", out, sizeof(out)), 0);
	assert_int_equal(strncmp(out, "Usage: netshim", 14), 0);
	assert_non_null(strstr(out, "--map-host-loopback"));
	assert_int_equal(run_exiting("-h", out, sizeof(out)), 0);
	assert_int_equal(strncmp(out, "Usage: netshim", 14), 0);
	assert_int_equal(run_exiting("--version", out, sizeof(out)), 0);
	assert_int_equal(strncmp(out, "netshim ", 8), 0);
	/* QEMU's vhost-user back-end conventions: a JSON object, "type" */
	assert_int_equal(run_exiting("--print-capabilities", out,
				     sizeof(out)), 0);
	assert_non_null(strstr(out, "\"type\": \"net\""));
	assert_int_equal(out[0], '{');
}

/**
 * read_file() - read a whole small file
 * @path:	file
 * @buf:	output, NUL-terminated
 * @size:	size of @buf
 *
 * Return: 0 on success, -1 if @path cannot be opened
 */
static int read_file(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
	return 0;
}

static void test_help_man_in_sync(void **state)
{
	static char help[16384], man[65536];
	char opt[64], troff[128];
	const char *p, *end;
	size_t len;

	(void)state;
	/* Unit tests run from the top of the tree */
	if (read_file("doc/netshim.1", man, sizeof(man)))
		skip();
	assert_int_equal(run_exiting("--help", help, sizeof(help)), 0);

	/* Every long option of --help is in the man page, as \-\-name */
	for (p = strstr(help, "--"); p; p = strstr(p + len, "--")) {
		len = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz46-");
		assert_true(len < sizeof(opt));
		memcpy(opt, p, len);
		opt[len] = '\0';
		snprintf(troff, sizeof(troff), "\\-\\-%s", opt + 2);
		if (!strstr(man, troff))
			fail_msg("%s is not in doc/netshim.1", opt);
	}

	/* ...and every long option named under OPTIONS is in --help */
	p = strstr(man, ".SH OPTIONS");
	end = strstr(man, ".SH SIGNALS");
	assert_true(p && end && p < end);
	for (p = strstr(p, "\\-\\-"); p && p < end;
	     p = strstr(p + len, "\\-\\-")) {
		len = 4 + strspn(p + 4, "abcdefghijklmnopqrstuvwxyz46-");
		assert_true(len < sizeof(opt));
		snprintf(opt, sizeof(opt), "--%.*s", (int)len - 4, p + 4);
		if (!strstr(help, opt))
			fail_msg("%s of doc/netshim.1 is not in --help", opt);
	}
}

/**
 * read_log() - read a log file written by conf_log_summary()
 * @path:	file
 * @buf:	output
 * @size:	size of @buf
 */
static void read_log(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, size - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	close(fd);
}

static void test_log_summary(void **state)
{
	const char *argv[] = { "netshim", "-s", "/tmp/x.sock",
			       "-a", "203.0.113.2", "-n", "24",
			       "-g", "203.0.113.1", "-a", "2001:db8::2",
			       "-g", "fe80::1", "-D", "203.0.113.1",
			       "-S", "example.com", "-M", "52:54:00:12:34:56",
			       "-t", "80,8080:80,1000-2000:3000-4000",
			       "-t", "203.0.113.2/443", "-u", "~53,~1-10",
			       "--map-host-loopback", "203.0.113.9" };
	char path[] = "/tmp/netshim-log-XXXXXX", buf[8192];
	int fd;

	(void)state;
	assert_int_equal(parse(ARGC(argv), argv), 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);

	log_open(path, true, false, false);
	conf_log_summary(&conf);
	log_open(NULL, true, false, false);
	read_log(path, buf, sizeof(buf));
	unlink(path);

	assert_non_null(strstr(buf, "template interface: none"));
	assert_non_null(strstr(buf, "MTU: 65520"));
	assert_non_null(strstr(buf, "guest MAC: 52:54:00:12:34:56"));
	assert_non_null(strstr(buf, "IPv4: address 203.0.113.2/24, gateway 203.0.113.1"));
	assert_non_null(strstr(buf, "IPv6: address 2001:db8::2/64, gateway fe80::1"));
	assert_non_null(strstr(buf, "DNS: 203.0.113.1"));
	assert_non_null(strstr(buf, "DNS search: example.com"));
	assert_non_null(strstr(buf, "TCP ports forwarded: 80, 8080->80, 1000-2000->3000-4000, 203.0.113.2/443"));
	assert_non_null(strstr(buf, "UDP ports forwarded: all, except 53, except 1-10"));
	assert_non_null(strstr(buf, "203.0.113.9 goes to the pod's 127.0.0.1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fwd_single),
		cmocka_unit_test(test_fwd_map),
		cmocka_unit_test(test_fwd_range),
		cmocka_unit_test(test_fwd_range_map),
		cmocka_unit_test(test_fwd_exclude),
		cmocka_unit_test(test_fwd_mixed),
		cmocka_unit_test(test_fwd_bind),
		cmocka_unit_test(test_fwd_target),
		cmocka_unit_test(test_fwd_all_none),
		cmocka_unit_test(test_fwd_max_rules),
		cmocka_unit_test(test_fwd_errors),
		cmocka_unit_test(test_netmask),
		cmocka_unit_test(test_resolv_basic),
		cmocka_unit_test(test_resolv_search_domain),
		cmocka_unit_test(test_resolv_long_lines),
		cmocka_unit_test(test_resolv_too_many),
		cmocka_unit_test(test_resolv_missing),
		cmocka_unit_test(test_parse_v4),
		cmocka_unit_test(test_parse_v6),
		cmocka_unit_test(test_parse_dual),
		cmocka_unit_test(test_parse_all_options),
		cmocka_unit_test(test_parse_passt_options),
		cmocka_unit_test(test_parse_map_gw),
		cmocka_unit_test(test_parse_fd),
		cmocka_unit_test(test_parse_connect),
		cmocka_unit_test(test_parse_upgrade),
		cmocka_unit_test(test_parse_passt_refused),
		cmocka_unit_test(test_parse_passt_bad_values),
		cmocka_unit_test(test_parse_bpf),
		cmocka_unit_test(test_parse_no_proto),
		cmocka_unit_test(test_parse_later_wins),
		cmocka_unit_test(test_parse_limits),
		cmocka_unit_test(test_parse_runas_names),
		cmocka_unit_test(test_parse_sock_default),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_parse_refused_dns_count),
		cmocka_unit_test(test_parse_ns_command),
		cmocka_unit_test(test_parse_ns_pasta_forms),
		cmocka_unit_test(test_parse_ns_join),
		cmocka_unit_test(test_parse_ns_short_and_fd),
		cmocka_unit_test(test_parse_ns_refused),
		cmocka_unit_test(test_parse_ns_shell),
		cmocka_unit_test(test_parse_ns_copy),
		cmocka_unit_test(test_parse_ns_dns),
		cmocka_unit_test(test_parse_help_version),
		cmocka_unit_test(test_help_man_in_sync),
		cmocka_unit_test(test_parse_t_auto_vm),
		cmocka_unit_test(test_log_summary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
