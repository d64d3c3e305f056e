// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - unit tests for the control socket's wire format and tables
 *
 * What a user of pesto (passt 2026's client) expects: the greeting pesto
 * checks, rules laid out as passt lays them, the listing pesto prints for
 * each form of -t and -u as passt 2026 printed it for the same options
 * (observed, tests/integration/t_ctl_pesto.sh runs the real pesto), the
 * checks passt makes of a rule, and requests refused with a reason when
 * malformed.
 */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <netinet/in.h>

#include "netshim/ctlwire.h"
#include "netshim/fwdspec.h"
#include "netshim/fwdtable.h"

static struct ctl_table tab;
static struct ctl_req req;

/**
 * listing() - the rules of specs, as pesto would print them
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @o:		families and mode
 * @arg:	a -t or -u argument
 * @out:	the rules, one a line, "|" between them
 * @size:	its size
 */
static void listing(uint8_t proto, const struct fwdtable_opts *o,
		    const char *arg, char *out, size_t size)
{
	static struct fwd_spec spec;
	char r[CTL_RULE_STRLEN];
	const char *why;
	unsigned int i;

	memset(&spec, 0, sizeof(spec));
	spec.eph_first = 32768;
	spec.eph_last = 60999;
	assert_int_equal(fwdspec_parse(&spec, arg), 0);
	memset(&tab, 0, sizeof(tab));
	assert_int_equal(fwdtable_from_spec(&tab, &spec, proto, o, &why), 0);
	*out = '\0';
	for (i = 0; i < tab.n; i++) {
		if (i)
			strncat(out, "|", size - strlen(out) - 1);
		strncat(out, ctlwire_rule_fmt(&tab.rule[i], r, sizeof(r)),
			size - strlen(out) - 1);
	}
}

/* The greeting pesto checks: magic, version 2, name sizes 128 and 16 */
static void test_hello(void **state)
{
	static const uint8_t want[CTL_HELLO_LEN] = {
		'b', 'a', 's', 'i', 'l', ':', 's', 0,
		0, 0, 0, 2, 0, 0, 0, 128, 0, 0, 0, 16,
	};
	uint8_t buf[CTL_HELLO_LEN];

	(void)state;
	assert_int_equal(ctlwire_hello(buf), CTL_HELLO_LEN);
	assert_memory_equal(buf, want, sizeof(want));
}

/* A rule as passt's struct fwd_rule lies in memory, ports big-endian */
static void test_rule_layout(void **state)
{
	struct ctl_rule r = { .first = 0x1234, .last = 0x1235, .to = 0x2000,
			      .proto = IPPROTO_TCP, .flags = CTL_F_WEAK };
	uint8_t buf[CTL_RULE_LEN];
	struct ctl_rule back;

	(void)state;
	r.addr = unit_a6("::ffff:203.0.113.2");
	r.taddr = unit_a6("::ffff:203.0.113.9");
	strcpy(r.ifname, "pod0");
	assert_int_equal(ctlwire_rule_put(buf, &r), 56);
	assert_memory_equal(buf, &r.addr, 16);
	assert_memory_equal(buf + 32, "pod0\0", 5);
	assert_int_equal(buf[48], 0x12);
	assert_int_equal(buf[49], 0x34);
	assert_int_equal(buf[52], 0x20);
	assert_int_equal(buf[54], IPPROTO_TCP);
	assert_int_equal(buf[55], CTL_F_WEAK);
	ctlwire_rule_get(buf, &back);
	assert_true(fwdtable_rule_eq(&r, &back));
}

/* Every form of -t and -u lists as passt 2026 lists the same option */
static void test_listing(void **state)
{
	struct fwdtable_opts both = { .v4 = true, .v6 = true };
	struct fwdtable_opts v4 = { .v4 = true };
	static const char *const cases[][3] = {
		{ "t", "22", "TCP [*]:22  =>  22 " },
		{ "t", "22:23", "TCP [*]:22  =>  23 " },
		{ "t", "22-80:32-90", "TCP [*]:22-80  =>  32-90 " },
		{ "t", "9000-9010,~9005", "TCP [*]:9000-9004  =>  9000-9004 |"
		  "TCP [*]:9006-9010  =>  9006-9010 " },
		{ "t", "203.0.113.2/7000", "TCP [203.0.113.2]:7000  =>  7000 " },
		{ "t", "127.0.0.1%lo/7001",
		  "TCP [127.0.0.1]%lo:7001  =>  7001 " },
		{ "t", "0.0.0.0/7002:203.0.113.99/7003",
		  "TCP [0.0.0.0]:7002  =>  203.0.113.99:7003 " },
		{ "t", "all", "TCP [*]:1-32767  =>  1-32767  (best effort)|"
		  "TCP [*]:61000-65535  =>  61000-65535  (best effort)" },
		{ "t", "~25", "TCP [*]:1-24  =>  1-24  (best effort)|"
		  "TCP [*]:26-32767  =>  26-32767  (best effort)|"
		  "TCP [*]:61000-65535  =>  61000-65535  (best effort)" },
		{ "u", "5353:6000", "UDP [*]:5353  =>  6000 " },
		{ "u", "[2001:db8:1::2]/53", "UDP [2001:db8:1::2]:53  =>  53 " },
	};
	char out[1024];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		listing(cases[i][0][0] == 't' ? IPPROTO_TCP : IPPROTO_UDP,
			&both, cases[i][1], out, sizeof(out));
		if (strcmp(out, cases[i][2]))
			fail_msg("-%s %s: '%s', want '%s'", cases[i][0],
				 cases[i][1], out, cases[i][2]);
	}
	/* One family: any address of it, as pesto with IPv4 alone */
	listing(IPPROTO_TCP, &v4, "22", out, sizeof(out));
	assert_string_equal(out, "TCP [0.0.0.0]:22  =>  22 ");
	/* A target address alone: its own family, as netshim binds it */
	listing(IPPROTO_TCP, &both, "8080:203.0.113.9", out, sizeof(out));
	assert_string_equal(out, "TCP [0.0.0.0]:8080  =>  203.0.113.9:8080 ");
}

/* "auto" follows listeners: pasta's "[*]%lo" for -T, every port */
static void test_listing_auto(void **state)
{
	struct fwdtable_opts ns = { .v4 = true, .v6 = true };
	struct fwdtable_opts splice = { .v4 = true, .v6 = true,
					.splice = true };
	struct fwdtable_opts vm = { .v4 = true, .v6 = true,
				    .follow_vm = true };
	char out[1024];

	(void)state;
	listing(IPPROTO_TCP, &ns, "auto", out, sizeof(out));
	assert_string_equal(out, "TCP [*]:1-65535  =>  1-65535  "
			    "(best effort) (auto-scan)");
	listing(IPPROTO_TCP, &splice, "auto", out, sizeof(out));
	assert_string_equal(out, "TCP [*]%lo:1-65535  =>  1-65535  "
			    "(best effort) (auto-scan)");
	listing(IPPROTO_UDP, &splice, "5000", out, sizeof(out));
	assert_string_equal(out, "UDP [*]%lo:5000  =>  5000 ");
	listing(IPPROTO_TCP, &vm, "auto", out, sizeof(out));
	assert_string_equal(out, "TCP [*]:1-65535  =>  1-65535  "
			    "(best effort) (auto-scan)");
}

/* A table set at run time gives the lookups the same guest ports */
static void test_to_spec(void **state)
{
	struct fwdtable_opts both = { .v4 = true, .v6 = true };
	static struct fwd_spec spec;
	char out[256];
	uint16_t to;

	(void)state;
	listing(IPPROTO_TCP, &both, "22-80:32-90,~50,203.0.113.2/8080:9090",
		out, sizeof(out));
	assert_int_equal(fwdtable_to_spec(&tab, IPPROTO_TCP, &spec), 0);
	assert_true(fwdspec_lookup(&spec, 22, &to));
	assert_int_equal(to, 32);
	assert_false(fwdspec_lookup(&spec, 50, &to));
	assert_true(fwdspec_lookup(&spec, 80, &to));
	assert_int_equal(to, 90);
	assert_true(fwdspec_lookup(&spec, 8080, &to));
	assert_int_equal(to, 9090);
	assert_string_equal(fwdspec_find(&spec, 8080)->bind, "203.0.113.2");
	assert_int_equal(fwdtable_to_spec(&tab, IPPROTO_UDP, &spec), 0);
	assert_int_equal(spec.n, 0);
}

/* pesto's -A and -D: conflicts refused, only a rule itself deleted */
static void test_add_del(void **state)
{
	struct fwdtable_opts both = { .v4 = true, .v6 = true };
	char out[256], why[256];
	struct ctl_rule r;

	(void)state;
	listing(IPPROTO_TCP, &both, "9000-9010", out, sizeof(out));
	r = tab.rule[0];
	r.first = r.last = r.to = 9005;
	assert_int_equal(fwdtable_add(&tab, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "conflicts with TCP [*]:9000-9010"));
	assert_int_equal(fwdtable_del(&tab, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "without being it"));
	r.proto = IPPROTO_UDP;
	assert_int_equal(fwdtable_add(&tab, &r, why, sizeof(why)), 0);
	assert_int_equal(tab.n, 2);
	assert_int_equal(fwdtable_del(&tab, &tab.rule[0], why, sizeof(why)),
			 0);
	assert_int_equal(tab.n, 1);
	assert_int_equal(tab.rule[0].proto, IPPROTO_UDP);
	assert_int_equal(fwdtable_del(&tab, &tab.rule[0], why, sizeof(why)),
			 0);
	assert_int_equal(fwdtable_del(&tab, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no rule"));
}

/**
 * update() - a client's update of one table, as pesto writes it
 * @buf:	output
 * @pif:	the table
 * @r:		its rules
 * @n:		how many
 *
 * Return: bytes written, the closing interface number included
 */
static size_t update(uint8_t *buf, uint8_t pif, const struct ctl_rule *r,
		     unsigned int n)
{
	static struct ctl_table t;
	size_t len;

	t.pif = pif;
	t.n = n;
	memcpy(t.rule, r, n * sizeof(*r));
	len = ctlwire_update_put(buf, CTL_UPDATE_LEN_MAX, &t);
	buf[len++] = CTL_PIF_NONE;
	return len;
}

/* An update is whole only with its closing byte; each prefix wants more */
static void test_parse_update(void **state)
{
	static uint8_t buf[CTL_UPDATE_LEN_MAX];
	struct ctl_rule r[2] = { { .first = 80, .last = 80, .to = 80,
				   .proto = IPPROTO_TCP,
				   .flags = CTL_F_DUAL } };
	size_t len, i;

	(void)state;
	r[1] = r[0];
	r[1].first = r[1].last = r[1].to = 443;
	len = update(buf, CTL_PIF_HOST, r, 2);
	assert_int_equal(len, 1 + 4 + 2 * 56 + 1);
	for (i = 0; i < len; i++) {
		ctlwire_parse(buf, i, &req);
		assert_int_equal(req.kind, CTL_REQ_MORE);
	}
	ctlwire_parse(buf, len, &req);
	assert_int_equal(req.kind, CTL_REQ_RULES);
	assert_int_equal(req.len, len);
	assert_int_equal(req.n, 1);
	assert_int_equal(req.table[0].pif, CTL_PIF_HOST);
	assert_int_equal(req.table[0].n, 2);
	assert_int_equal(req.table[0].rule[1].first, 443);
	/* pesto's listing only: nothing, then a hang-up */
	ctlwire_parse(buf, 0, &req);
	assert_int_equal(req.kind, CTL_REQ_MORE);
}

/* Malformed updates and lines: refused, each with a reason */
static void test_parse_bad(void **state)
{
	static uint8_t buf[CTL_UPDATE_LEN_MAX + 2];
	struct ctl_rule r = { .first = 80, .last = 80, .to = 80,
			      .proto = IPPROTO_TCP };
	size_t len;

	(void)state;
	/* 256 rules: more than passt's tables hold */
	buf[0] = CTL_PIF_HOST;
	buf[1] = 0;
	buf[2] = 0;
	buf[3] = 1;
	buf[4] = 0;
	ctlwire_parse(buf, 5, &req);
	assert_int_equal(req.kind, CTL_REQ_BAD);
	assert_non_null(strstr(req.why, "255"));
	/* One table twice */
	len = update(buf, CTL_PIF_HOST, &r, 1) - 1;
	memcpy(buf + len, buf, len);
	ctlwire_parse(buf, 2 * len, &req);
	assert_int_equal(req.kind, CTL_REQ_BAD);
	assert_non_null(strstr(req.why, "twice"));
	/* An interface name without its NUL */
	memset(r.ifname, 'x', sizeof(r.ifname));
	len = update(buf, CTL_PIF_HOST, &r, 1);
	memset(buf + 5 + 32, 'x', 16);
	ctlwire_parse(buf, len, &req);
	assert_int_equal(req.kind, CTL_REQ_BAD);
	assert_non_null(strstr(req.why, "NUL"));
	/* Lines of netshim-ctl's own */
	ctlwire_parse((const uint8_t *)"NSCTL1 metrics\n", 15, &req);
	assert_int_equal(req.kind, CTL_REQ_TEXT);
	assert_string_equal(req.verb, "metrics");
	assert_string_equal(req.arg, "");
	ctlwire_parse((const uint8_t *)"NSCTL1 capture 96\nrest", 22, &req);
	assert_int_equal(req.kind, CTL_REQ_TEXT);
	assert_string_equal(req.arg, "96");
	assert_int_equal(req.len, 18);
	ctlwire_parse((const uint8_t *)"NSCTL1 metr", 11, &req);
	assert_int_equal(req.kind, CTL_REQ_MORE);
	ctlwire_parse((const uint8_t *)"NSCTL2 metrics\n", 15, &req);
	assert_int_equal(req.kind, CTL_REQ_BAD);
	ctlwire_parse((const uint8_t *)"NSCTL1 METRICS\n", 15, &req);
	assert_int_equal(req.kind, CTL_REQ_BAD);
	ctlwire_parse((const uint8_t *)"NSCTL1 flows \x01\n", 15, &req);
	assert_int_equal(req.kind, CTL_REQ_BAD);
	memset(buf, 'a', CTL_TEXT_MAX + 8);
	memcpy(buf, "NSCTL1 ", 7);
	ctlwire_parse(buf, CTL_TEXT_MAX + 8, &req);
	assert_int_equal(req.kind, CTL_REQ_BAD);
	assert_non_null(strstr(req.why, "too long"));
}

/* passt's checks of a rule, each with its reason */
static void test_rule_check(void **state)
{
	const uint32_t caps = CTL_CAP_IPV4 | CTL_CAP_IPV6 | CTL_CAP_TCP |
			      CTL_CAP_UDP | CTL_CAP_IFNAME;
	struct ctl_rule ok = { .first = 80, .last = 90, .to = 8080,
			       .proto = IPPROTO_TCP, .flags = CTL_F_DUAL };
	struct ctl_rule r;
	char why[256];

	(void)state;
	assert_null(ctlwire_rule_check(&ok, caps));
	r = ok;
	r.first = 91;
	assert_non_null(ctlwire_rule_check(&r, caps));
	r = ok;
	r.first = 0;
	assert_non_null(ctlwire_rule_check(&r, caps));
	r = ok;
	r.to = 65530;
	assert_non_null(ctlwire_rule_check(&r, caps));
	r = ok;
	r.flags |= 0x80;
	assert_non_null(ctlwire_rule_check(&r, caps));
	r = ok;
	r.proto = IPPROTO_ICMP;
	assert_non_null(ctlwire_rule_check(&r, caps));
	r = ok;
	assert_non_null(ctlwire_rule_check(&r, caps & ~CTL_CAP_TCP));
	assert_non_null(ctlwire_rule_check(&r, caps & ~CTL_CAP_IPV6));
	r.flags |= CTL_F_SCAN;
	assert_non_null(strstr(ctlwire_rule_check(&r, caps), "auto"));
	r = ok;
	r.taddr = unit_a6("::ffff:203.0.113.9");
	assert_non_null(strstr(ctlwire_rule_check(&r, caps), "0.0.0.0"));
	r.flags = 0;
	r.addr = unit_a6("::ffff:0.0.0.0");
	assert_null(ctlwire_rule_check(&r, caps));
	r.taddr = unit_a6("::ffff:224.0.0.1");
	assert_non_null(ctlwire_rule_check(&r, caps));
	r.taddr = unit_a6("::ffff:127.0.0.1");
	assert_non_null(ctlwire_rule_check(&r, caps));
	r.taddr = unit_a6("2001:db8::9");
	assert_non_null(strstr(ctlwire_rule_check(&r, caps), "famil"));
	r = ok;
	strcpy(r.ifname, "..");
	assert_non_null(ctlwire_rule_check(&r, caps));

	/* Conflicts, as passt's: any address overlaps every address */
	memset(&tab, 0, sizeof(tab));
	tab.caps = caps;
	tab.n = 2;
	tab.rule[0] = ok;
	tab.rule[1] = ok;
	tab.rule[1].flags = 0;
	tab.rule[1].addr = unit_a6("::ffff:203.0.113.2");
	tab.rule[1].first = tab.rule[1].last = 90;
	assert_int_equal(ctlwire_table_check(&tab, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "conflicts"));
	tab.rule[1].proto = IPPROTO_UDP;
	assert_int_equal(ctlwire_table_check(&tab, why, sizeof(why)), 0);
	tab.rule[0].flags = 0;
	tab.rule[0].proto = IPPROTO_UDP;
	tab.rule[0].addr = unit_a6("::ffff:203.0.113.3");
	assert_int_equal(ctlwire_table_check(&tab, why, sizeof(why)), 0);
}

/* The listing a client reads: greeting, tables, the closing byte */
static void test_listing_parse(void **state)
{
	static uint8_t buf[CTL_LISTING_LEN_MAX];
	static struct ctl_table got[CTL_PIFS_MAX];
	struct ctl_rule r = { .first = 22, .last = 22, .to = 22,
			      .proto = IPPROTO_TCP, .flags = CTL_F_DUAL };
	const char *why = NULL;
	unsigned int n;
	size_t len, used, i;

	(void)state;
	memset(&tab, 0, sizeof(tab));
	tab.pif = CTL_PIF_HOST;
	tab.caps = CTL_CAP_TCP;
	tab.n = 1;
	tab.rule[0] = r;
	len = ctlwire_hello(buf);
	len += ctlwire_listing_put(buf + len, sizeof(buf) - len, &tab);
	buf[len++] = CTL_PIF_NONE;
	for (i = 0; i < len; i++)
		assert_int_equal(ctlwire_listing_parse(buf, i, got, 2, &n,
						       &used, &why), 0);
	assert_int_equal(ctlwire_listing_parse(buf, len, got, 2, &n, &used,
					       &why), 1);
	assert_int_equal(used, len);
	assert_int_equal(n, 1);
	assert_int_equal(got[0].caps, CTL_CAP_TCP);
	assert_true(fwdtable_rule_eq(&got[0].rule[0], &r));
	buf[0] = 'x';
	assert_int_equal(ctlwire_listing_parse(buf, len, got, 2, &n, &used,
					       &why), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hello),
		cmocka_unit_test(test_rule_layout),
		cmocka_unit_test(test_listing),
		cmocka_unit_test(test_listing_auto),
		cmocka_unit_test(test_to_spec),
		cmocka_unit_test(test_add_del),
		cmocka_unit_test(test_parse_update),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_rule_check),
		cmocka_unit_test(test_listing_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
