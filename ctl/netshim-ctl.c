// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim-ctl - netshim's control socket, from the command line
 *
 *   netshim-ctl SOCKET rules
 *   netshim-ctl SOCKET add|delete|set [-t|-u|-T|-U SPEC]...
 *   netshim-ctl SOCKET clear HOST|SPLICE
 *   netshim-ctl SOCKET metrics | flows | capture-stop
 *   netshim-ctl SOCKET capture [-s SNAPLEN] [-w FILE] [-n FRAMES]
 *				[-d SECONDS]
 *
 * SOCKET is netshim's -c PATH.  The rules are passt's, as pesto (passt's
 * client) lists and changes them, over the same protocol: this client
 * reads the tables, adds or deletes rules made from netshim's own -t
 * grammar (netshim/fwdspec.c, netshim/fwdtable.c), sends them back, and
 * reports netshim's answer, which pesto does not read.  What pesto has no
 * verb for (counters, flows, captures) is a line of netshim's own after
 * the greeting: netshim/ctlwire.c has both.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "netshim/ctlwire.h"
#include "netshim/fwdspec.h"
#include "netshim/fwdtable.h"

#define PCAP_HDR_LEN		24
#define PCAP_REC_LEN		16
#define PCAP_MAGIC_LE		"\xd4\xc3\xb2\xa1"

static const char *prog = "netshim-ctl";
static volatile sig_atomic_t stop;

/**
 * usage() - print how to call us, exit
 * @status:	exit status: 0 to stdout, else to stderr
 */
static void __attribute__((noreturn)) usage(int status)
{
	fprintf(status ? stderr : stdout,
"Usage: %s SOCKET COMMAND [ARGUMENT]...\n"
"netshim's control socket (netshim -c SOCKET):\n"
"  rules                      list the forwarding rules, as pesto does\n"
"  add [-t|-u|-T|-U SPEC]...  add rules: SPEC as netshim's -t, -u, -T, -U\n"
"  delete [-t|-u|-T|-U SPEC]... delete those rules, as listed\n"
"  set [-t|-u|-T|-U SPEC]...  replace the rules of the tables named (-t, -u:\n"
"                             HOST; -T, -U: SPLICE, namespace mode)\n"
"  clear HOST|SPLICE          delete every rule of a table\n"
"  metrics                    the counters, in Prometheus' text format\n"
"  flows                      the guest's flows, one a line\n"
"  capture [-s SNAPLEN] [-w FILE] [-n FRAMES] [-d SECONDS]\n"
"                             the guest's frames from now on, as a pcap\n"
"                             file (default: standard output), until\n"
"                             interrupted, FRAMES taken or SECONDS passed\n"
"  capture-stop               stop the capture another client runs\n"
"See netshim-ctl(1).\n", prog);
	exit(status);
}

/**
 * die() - print a message and exit 1
 * @fmt:	format, then its arguments
 */
static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/**
 * connect_to() - connect to netshim's control socket
 * @path:	its path
 *
 * Return: the connection
 */
static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		die("%s: path too long", path);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("cannot connect to %s: %s", path, strerror(errno));
	return fd;
}

/**
 * struct session - what netshim said when we connected
 * @fd:		the connection
 * @t:		its rule tables
 * @n:		how many
 * @rest:	bytes read past them (the start of an answer)
 * @rest_len:	how many
 */
struct session {
	int fd;
	struct ctl_table t[CTL_PIFS_MAX];
	unsigned int n;
	uint8_t rest[CTL_LISTING_LEN_MAX];
	size_t rest_len;
};

/**
 * greet() - read netshim's greeting and rule tables
 * @s:		session, its connection open; the rest filled in
 * @path:	the socket's path, for messages
 */
static void greet(struct session *s, const char *path)
{
	static uint8_t buf[CTL_LISTING_LEN_MAX];
	const char *why = NULL;
	size_t len = 0, used = 0;
	ssize_t n;
	int rc;

	for (;;) {
		n = read(s->fd, buf + len, sizeof(buf) - len);
		if (n <= 0) {
			/* A refusal is a line of text instead */
			if (len && buf[0] != 'b')
				die("%s: %.*s", path, (int)strcspn(
				    (char *)buf, "\n"), (char *)buf);
			die("%s: no greeting%s%s", path, n < 0 ? ": " : "",
			    n < 0 ? strerror(errno) : "");
		}
		len += (size_t)n;
		rc = ctlwire_listing_parse(buf, len, s->t, CTL_PIFS_MAX,
					   &s->n, &used, &why);
		if (rc < 0) {
			if (buf[0] != 'b')
				die("%s: %.*s", path, (int)strcspn(
				    (char *)buf, "\n"), (char *)buf);
			die("%s: %s", path, why);
		}
		if (rc > 0)
			break;
		if (len == sizeof(buf))
			die("%s: greeting too long", path);
	}
	s->rest_len = len - used;
	memcpy(s->rest, buf + used, s->rest_len);
}

/**
 * table_of() - the table of an interface
 * @s:		session
 * @pif:	CTL_PIF_HOST or CTL_PIF_SPLICE
 *
 * Return: the table, NULL if netshim has none
 */
static struct ctl_table *table_of(struct session *s, uint8_t pif)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->t[i].pif == pif)
			return &s->t[i];
	return NULL;
}

/**
 * show_rules() - the tables, as pesto lists them
 * @s:		session
 * @path:	the socket's path
 */
static void show_rules(const struct session *s, const char *path)
{
	char r[CTL_RULE_STRLEN];
	unsigned int i, j;

	printf("netshim configuration (%s)\n", path);
	for (i = 0; i < s->n; i++) {
		printf("  %s\n", ctlwire_pif_name(s->t[i].pif) ?
		       ctlwire_pif_name(s->t[i].pif) : "?");
		for (j = 0; j < s->t[i].n; j++)
			printf("    %s\n", ctlwire_rule_fmt(&s->t[i].rule[j], r,
							 sizeof(r)));
	}
}

/**
 * ephemeral() - this namespace's ephemeral ports, which "all" leaves out
 * @spec:	gets them
 */
static void ephemeral(struct fwd_spec *spec)
{
	unsigned int first, last;
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");

	if (!f)
		return;
	if (fscanf(f, "%u %u", &first, &last) == 2 && first && first <= last &&
	    last <= 65535) {
		spec->eph_first = (uint16_t)first;
		spec->eph_last = (uint16_t)last;
	}
	fclose(f);
}

/**
 * spec_rules() - the rules of the -t, -u, -T or -U options, as netshim's
 *		  command line takes them: repeated, one spec
 * @s:		session: families and mode from netshim's tables
 * @opt:	the option letter
 * @spec:	the spec, parsed
 * @out:	filled in: its table and rules
 */
static void spec_rules(struct session *s, int opt,
		       const struct fwd_spec *spec, struct ctl_table *out)
{
	bool splice = opt == 'T' || opt == 'U';
	struct ctl_table *t = table_of(s, splice ? CTL_PIF_SPLICE :
						   CTL_PIF_HOST);
	struct fwdtable_opts o = { 0 };
	const char *why;

	if (!t)
		die("-%c: netshim has no %s table (-T and -U are namespace "
		    "mode's)", opt, splice ? "SPLICE" : "HOST");
	o.v4 = t->caps & CTL_CAP_IPV4;
	o.v6 = t->caps & CTL_CAP_IPV6;
	o.splice = splice;
	/* No SPLICE table: a VM, whose "auto" is the sk_lookup program's */
	o.follow_vm = !table_of(s, CTL_PIF_SPLICE);
	memset(out, 0, sizeof(*out));
	out->pif = t->pif;
	if (fwdtable_from_spec(out, spec, opt == 't' || opt == 'T' ?
			       IPPROTO_TCP : IPPROTO_UDP, &o, &why))
		die("-%c: %s", opt, why);
}

/**
 * send_all() - write a buffer whole
 * @fd:		the connection
 * @buf:	the bytes
 * @len:	how many
 */
static void send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("cannot send to netshim: %s", strerror(errno));
		p += n;
		len -= (size_t)n;
	}
}

/**
 * answer() - print netshim's answer to a request, read to the end
 * @s:		session
 * @out:	where its text goes
 *
 * Return: 0 if netshim said "ok" or sent its text, 1 for "error: ..."
 */
static int answer(struct session *s, FILE *out)
{
	char buf[4096];
	bool first = true, error = false;
	ssize_t n;

	if (s->rest_len) {
		error = !strncmp((char *)s->rest, "error:", 6);
		first = false;
		fwrite(s->rest, 1, s->rest_len, error ? stderr : out);
	}
	while ((n = read(s->fd, buf, sizeof(buf))) > 0) {
		if (first)
			error = n >= 6 && !strncmp(buf, "error:", 6);
		first = false;
		fwrite(buf, 1, (size_t)n, error ? stderr : out);
	}
	if (first)
		die("no answer from netshim");
	return error;
}

/**
 * request() - send a line of netshim-ctl's own, print the answer
 * @s:		session
 * @line:	the request, after "NSCTL1 "
 *
 * Return: exit status
 */
static int request(struct session *s, const char *line)
{
	char buf[CTL_TEXT_MAX];

	snprintf(buf, sizeof(buf), "%s%s\n", CTL_TEXT_PREFIX, line);
	send_all(s->fd, buf, strlen(buf));
	return answer(s, stdout);
}

/**
 * change() - add, delete or set rules, send the tables back
 * @s:		session
 * @verb:	"add", "delete", "set" or "clear"
 * @argc:	arguments after the verb
 * @argv:	them
 *
 * Repeated options of one letter make one spec, as on netshim's command
 * line: -t 22 -t auto is port 22, and auto for the others.
 *
 * Return: exit status
 */
static int change(struct session *s, const char *verb, int argc, char **argv)
{
	static const char letters[] = "tuTU";
	static uint8_t buf[CTL_UPDATE_LEN_MAX];
	static struct fwd_spec spec[4];
	static struct ctl_table add;
	bool given[4] = { false }, cleared[CTL_PIFS_MAX] = { false };
	char why[512];
	size_t len = 0;
	unsigned int i, j;
	int opt, k;

	if (!strcmp(verb, "clear")) {
		struct ctl_table *t;

		if (argc != 1)
			usage(1);
		t = table_of(s, !strcmp(argv[0], "HOST") ? CTL_PIF_HOST :
				!strcmp(argv[0], "SPLICE") ? CTL_PIF_SPLICE :
				CTL_PIF_NONE);
		if (!t)
			die("clear: netshim has no table %s", argv[0]);
		t->n = 0;
		goto send;
	}
	optind = 0;
	while ((opt = getopt(argc + 1, argv - 1, "+t:u:T:U:")) != -1) {
		if (opt == '?')
			usage(1);
		k = (int)(strchr(letters, opt) - letters);
		if (!given[k]) {
			memset(&spec[k], 0, sizeof(spec[k]));
			ephemeral(&spec[k]);
		}
		given[k] = true;
		if (fwdspec_parse(&spec[k], optarg))
			exit(1);
	}
	if (optind != argc + 1 || argc < 2)
		usage(1);
	for (k = 0; k < 4; k++) {
		struct ctl_table *t;

		if (!given[k])
			continue;
		spec_rules(s, letters[k], &spec[k], &add);
		t = table_of(s, add.pif);
		j = t == &s->t[0] ? 0 : 1;
		if (!strcmp(verb, "set") && !cleared[j]) {
			t->n = 0;
			cleared[j] = true;
		}
		for (i = 0; i < add.n; i++) {
			if (strcmp(verb, "delete") ?
			    fwdtable_add(t, &add.rule[i], why, sizeof(why)) :
			    fwdtable_del(t, &add.rule[i], why, sizeof(why)))
				die("%s -%c: %s", verb, letters[k], why);
		}
	}
send:
	for (i = 0; i < s->n; i++)
		len += ctlwire_update_put(buf + len, sizeof(buf) - len,
					  &s->t[i]);
	buf[len++] = CTL_PIF_NONE;
	send_all(s->fd, buf, len);
	return answer(s, stdout);
}

/**
 * on_signal() - stop a capture
 * @sig:	the signal
 */
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/**
 * capture() - the guest's frames from now on, to a pcap file
 * @s:		session
 * @argc:	arguments after the verb
 * @argv:	them
 *
 * Return: exit status
 */
static int capture(struct session *s, int argc, char **argv)
{
	unsigned long snaplen = 0, frames = 0, seconds = 0, got = 0;
	enum { FILE_HDR, REC_HDR, BODY } at = FILE_HDR;
	struct sigaction sa = { .sa_handler = on_signal };
	size_t len = 0, off, need = PCAP_HDR_LEN;
	static uint8_t buf[1 << 17];
	int opt, out = STDOUT_FILENO;
	const char *file = NULL;
	char line[64];
	ssize_t n;

	optind = 0;
	while ((opt = getopt(argc + 1, argv - 1, "+s:w:n:d:")) != -1) {
		char *end = "";

		errno = 0;
		switch (opt) {
		case 's':
			snaplen = strtoul(optarg, &end, 10);
			break;
		case 'w':
			file = optarg;
			break;
		case 'n':
			frames = strtoul(optarg, &end, 10);
			break;
		case 'd':
			seconds = strtoul(optarg, &end, 10);
			break;
		default:
			usage(1);
		}
		if (errno || *end)
			die("capture: -%c %s: not a number", opt, optarg);
	}
	if (optind != argc + 1)
		usage(1);
	if (file && strcmp(file, "-")) {
		out = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (out < 0)
			die("%s: %s", file, strerror(errno));
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	if (seconds)
		alarm((unsigned int)seconds);

	snprintf(line, sizeof(line), snaplen ? "capture %lu" : "capture",
		 snaplen);
	snprintf((char *)buf, sizeof(buf), "%s%s\n", CTL_TEXT_PREFIX, line);
	send_all(s->fd, buf, strlen((char *)buf));
	memcpy(buf, s->rest, s->rest_len);
	len = s->rest_len;
	/* Records are passed on whole: -n and a signal stop at a frame's
	 * end, and the file is one a reader takes
	 */
	while (!stop) {
		if (at == FILE_HDR && len >= 6 && !memcmp(buf, "error:", 6)) {
			fwrite(buf, 1, len, stderr);
			while ((n = read(s->fd, buf, sizeof(buf))) > 0)
				fwrite(buf, 1, (size_t)n, stderr);
			return 1;
		}
		if (at == FILE_HDR && len >= 4 && memcmp(buf, PCAP_MAGIC_LE, 4))
			die("capture: not a pcap stream from netshim");
		for (off = 0; len - off >= need && !stop; ) {
			uint32_t caplen;

			if (write(out, buf + off, need) != (ssize_t)need)
				die("capture: cannot write: %s",
				    strerror(errno));
			off += need;
			switch (at) {
			case REC_HDR:
				memcpy(&caplen, buf + off - PCAP_REC_LEN + 8,
				       4);
				if (caplen > sizeof(buf) - PCAP_REC_LEN)
					die("capture: record too long");
				need = caplen;
				at = BODY;
				break;
			case BODY:
				if (++got == frames)
					stop = 1;
				/* fall through */
			case FILE_HDR:
				need = PCAP_REC_LEN;
				at = REC_HDR;
				break;
			}
		}
		memmove(buf, buf + off, len - off);
		len -= off;
		if (stop)
			break;
		n = read(s->fd, buf + len, sizeof(buf) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (out != STDOUT_FILENO)
		close(out);
	fprintf(stderr, "%s: %lu frames captured\n", prog, got);
	return 0;
}

/**
 * main() - connect, read the tables, do what the command line says
 * @argc:	argument count
 * @argv:	SOCKET COMMAND [ARGUMENT]...
 *
 * Return: 0 on success, 1 on failure or netshim's refusal
 */
int main(int argc, char **argv)
{
	static struct session s;
	const char *path, *verb;

	if (argc > 1 && (!strcmp(argv[1], "-h") ||
			 !strcmp(argv[1], "--help")))
		usage(0);
	if (argc < 3)
		usage(1);
	path = argv[1];
	verb = argv[2];
	s.fd = connect_to(path);
	greet(&s, path);

	if (!strcmp(verb, "rules") && argc == 3) {
		show_rules(&s, path);
		return 0;
	}
	if (!strcmp(verb, "add") || !strcmp(verb, "delete") ||
	    !strcmp(verb, "set") || !strcmp(verb, "clear"))
		return change(&s, verb, argc - 3, argv + 3);
	if ((!strcmp(verb, "metrics") || !strcmp(verb, "flows") ||
	     !strcmp(verb, "capture-stop")) && argc == 3)
		return request(&s, verb);
	if (!strcmp(verb, "capture"))
		return capture(&s, argc - 3, argv + 3);
	usage(1);
}
