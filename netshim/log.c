// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - logging to stderr, a log file, or syslog
 *
 * In the foreground, messages go to stderr; with -l they go to the file;
 * otherwise to syslog.  Formatting happens on the stack: no allocation.
 *
 * The log file starts afresh at each start, with a first line naming
 * netshim, its version, its executable and the PID that serves, as
 * passt's does.  When it is full (--log-size), its oldest lines go and
 * the newest stay: a pod's disk is small, and the newest messages are
 * the useful ones.
 * syslog(3) is not used: glibc's allocates per message, and its socket is
 * opened lazily, after netshim has left the filesystem.  Our own datagram
 * socket to /dev/log is opened at start.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#ifndef NETSHIM_VERSION
#define NETSHIM_VERSION "unknown"
#endif

/* Size of the log file without --log-size, as passt's */
#define LOG_SIZE_DEFAULT	(1024 * 1024)
/* A full file loses its oldest lines until this share of it is free, so
 * that it is cut once in a while rather than at every message
 */
#define LOG_CUT_PERCENT		30

/* The logger is the process's, as syslog's would be: every room logs
 * without a context at hand (log.h), from start-up to exit, so its state
 * lives here rather than in struct ctx
 */
static int log_fd = -1;
static bool log_to_syslog;
static int log_pid;
static int log_level = LOG_INFO;
static bool log_trace;
static bool log_to_file;
static unsigned int log_size = LOG_SIZE_DEFAULT;	/* of the log file */
static off_t log_written;	/* bytes in the log file */
static bool log_append;		/* go on with the file, not afresh */
static char log_exe[PATH_MAX];	/* our executable, for the first line */

/**
 * log_file_header() - the log file's first line
 * @buf:	where to write it
 * @size:	room at @buf
 * @cut:	the file lost its oldest lines: say so, and when
 *
 * Return: length of the line, 0 if it does not fit
 */
static size_t log_file_header(char *buf, size_t size, bool cut)
{
	struct timespec ts;
	int n;

	n = snprintf(buf, size, "netshim " NETSHIM_VERSION ": %s (%d)",
		     log_exe, (int)getpid());
	if (cut && n > 0 && n < (int)size) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		n += snprintf(buf + n, size - n,
			      " - log truncated at %lld.%03ld",
			      (long long)ts.tv_sec, ts.tv_nsec / 1000000);
	}
	if (n <= 0 || n > (int)size - 2)
		return 0;
	buf[n++] = '\n';
	return n;
}

/**
 * log_file_move() - move the end of the log file to another offset
 * @from:	first byte to move
 * @to:		where it goes
 *
 * Through a buffer on the stack, from the start when moving down, from
 * the end when moving up, so that nothing is overwritten before it moved.
 *
 * Return: 0 on success, -1 on failure
 */
static int log_file_move(off_t from, off_t to)
{
	off_t len = log_written - from, done = 0, at;
	char buf[4096];
	ssize_t n;

	while (done < len) {
		n = (ssize_t)sizeof(buf);
		if (len - done < n)
			n = (ssize_t)(len - done);
		at = to <= from ? done : len - done - n;
		if (pread(log_fd, buf, n, from + at) != n ||
		    pwrite(log_fd, buf, n, to + at) != n)
			return -1;
		done += n;
	}
	return 0;
}

/**
 * log_file_keep() - start the log file again from a new first line, with
 *		     what it held from an offset on
 * @from:	first byte kept, at the start of a line
 * @cut:	lines were dropped: the first line says so
 *
 * If anything fails the file is emptied instead: a log never outgrows
 * its limit.
 */
static void log_file_keep(off_t from, bool cut)
{
	char head[PATH_MAX + 128];
	size_t hl = log_file_header(head, sizeof(head), cut);

	if (!hl || log_file_move(from, (off_t)hl) ||
	    pwrite(log_fd, head, hl, 0) != (ssize_t)hl ||
	    ftruncate(log_fd, (off_t)hl + log_written - from)) {
		if (!ftruncate(log_fd, 0))
			log_written = 0;
		return;
	}
	log_written = (off_t)hl + log_written - from;
}

/**
 * log_file_cut() - drop the oldest lines of a full log file
 * @need:	bytes about to be written
 *
 * Lines go until a share of the file is free, the first line stays and
 * says when this happened.
 */
static void log_file_cut(size_t need)
{
	off_t keep = (off_t)log_size * (100 - LOG_CUT_PERCENT) / 100;
	char buf[PATH_MAX + 128], *nl;
	off_t from;
	ssize_t n;

	from = log_written + (off_t)need - keep +
	       (off_t)log_file_header(buf, sizeof(buf), true);
	if (from >= log_written) {
		log_file_keep(log_written, true);
		return;
	}
	if (from < 0)
		from = 0;
	/* Cut at a line's end, so that every line left is whole: a message
	 * is shorter than the buffer
	 */
	n = pread(log_fd, buf, sizeof(buf), from);
	nl = n > 0 ? memchr(buf, '\n', n) : NULL;
	log_file_keep(nl ? from + (nl - buf) + 1 : log_written, true);
}

/**
 * log_file_open() - start a log file afresh
 * @file:	its path
 *
 * Return: 0 on success, -1 if it cannot be opened
 */
static int log_file_open(const char *file)
{
	ssize_t n;

	log_fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC |
			    (log_append ? 0 : O_TRUNC), 0600);
	if (log_fd < 0)
		return -1;
	n = readlink("/proc/self/exe", log_exe, sizeof(log_exe) - 1);
	log_exe[n > 0 ? n : 0] = '\0';
	log_to_file = true;
	log_written = 0;
	if (!log_append)
		log_file_keep(0, false);
	return 0;
}

/**
 * log_set_append() - go on with the log file rather than start it afresh
 * @on:		an upgrade in place: the running netshim writes the same
 *		file until it hands over, and its lines stay
 *
 * Called before log_open().  Each line is then written at the file's
 * end as it is at that moment, wherever the other process left it.
 */
void log_set_append(bool on)
{
	log_append = on;
}

/**
 * log_open() - choose where messages go and which are shown
 * @file:	log file path, or NULL or "" for none
 * @foreground:	running in the foreground: stderr unless @file is given
 * @quiet:	only warnings and errors
 * @debug:	also debug messages
 */
void log_open(const char *file, bool foreground, bool quiet, bool debug)
{
	log_level = debug ? LOG_DEBUG : quiet ? LOG_WARNING : LOG_INFO;
	if (log_to_file)
		close(log_fd);
	log_to_file = log_to_syslog = false;
	if (file && *file) {
		if (!log_file_open(file))
			return;
		fprintf(stderr, "netshim: cannot open log file %s: %m\n", file);
	}
	if (foreground) {
		log_fd = STDERR_FILENO;
	} else {
		struct sockaddr_un sa = { AF_UNIX, "/dev/log" };

		log_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (log_fd >= 0 &&
		    connect(log_fd, (struct sockaddr *)&sa, sizeof(sa))) {
			close(log_fd);
			log_fd = -1;
		}
		log_to_syslog = log_fd >= 0;
		log_pid = getpid();
	}
}

/**
 * log_set_trace() - turn per-frame messages (trace()) on or off
 * @on:		true for --trace
 */
void log_set_trace(bool on)
{
	log_trace = on;
}

/**
 * log_tracing() - tell if per-frame messages are wanted
 *
 * Return: true after log_set_trace(true)
 */
bool log_tracing(void)
{
	return log_trace;
}

/**
 * log_set_size() - limit the size of the log file
 * @size:	bytes, 0 for the default (1 MiB, as passt's)
 *
 * A message that would grow the file beyond @size makes room first,
 * dropping the oldest lines.
 */
void log_set_size(unsigned int size)
{
	log_size = size ? size : LOG_SIZE_DEFAULT;
}

/**
 * log_forked() - the process that logs is now the daemon, another PID
 *
 * The log file's first line and syslog's messages name the PID that
 * serves, the one in the PID file.
 */
void log_forked(void)
{
	log_pid = getpid();
	if (log_to_file) {
		char buf[PATH_MAX + 128], *nl;
		ssize_t n = pread(log_fd, buf, sizeof(buf), 0);

		nl = n > 0 ? memchr(buf, '\n', n) : NULL;
		if (nl)
			log_file_keep(nl - buf + 1, false);
	}
}

/**
 * log_msg() - log one message
 * @prio:	syslog priority
 * @fmt:	printf format
 */
void log_msg(int prio, const char *fmt, ...)
{
	char buf[1024];
	struct timespec ts;
	va_list ap;
	int n, m;

	if (prio > log_level)
		return;

	va_start(ap, fmt);
	if (log_to_syslog) {
		n = snprintf(buf, sizeof(buf), "<%d>netshim[%d]: ",
			     LOG_DAEMON | prio, log_pid);
	} else {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		n = snprintf(buf, sizeof(buf), "%lld.%03ld netshim: %s",
			     (long long)ts.tv_sec, ts.tv_nsec / 1000000,
			     prio <= LOG_ERR ? "error: " :
			     prio == LOG_WARNING ? "warning: " : "");
	}
	m = vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	if (!log_to_syslog)
		buf[n++] = '\n';
	if (log_to_file) {
		off_t end = lseek(log_fd, 0, SEEK_END);

		/* Another netshim may have written since: an upgrade */
		if (end >= 0)
			log_written = end;
		if (log_written + n > (off_t)log_size)
			log_file_cut(n);
		if (pwrite(log_fd, buf, n, log_written) == n)
			log_written += n;
		return;
	}
	if (write(log_fd >= 0 ? log_fd : STDERR_FILENO, buf, n) < 0)
		return;
}

/**
 * log_ratelimit() - decide whether a rate-limited message may go out
 * @last:	time of the last message from this site, updated
 * @now:	current time, seconds
 * @interval:	minimum seconds between messages
 *
 * Return: true if the message may be logged now
 */
bool log_ratelimit(time_t *last, time_t now, time_t interval)
{
	if (*last && now - *last < interval)
		return false;
	*last = now;
	return true;
}

/**
 * log_buf_add() - append formatted text to a bounded buffer
 * @buf:	buffer, always NUL-terminated
 * @size:	its size
 * @len:	current length, updated (stops growing once full)
 * @fmt:	printf format
 */
void log_buf_add(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= size - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + n < size - 1 ? *len + n : size - 1;
}
