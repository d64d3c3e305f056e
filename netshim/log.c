// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - logging to stderr, a log file, or syslog
 *
 * In the foreground, messages go to stderr; with -l they go to the file;
 * otherwise to syslog.  Formatting happens on the stack: no allocation.
 * syslog(3) is not used: glibc's allocates per message, and its socket is
 * opened lazily, after netshim has left the filesystem.  Our own datagram
 * socket to /dev/log is opened at start.
 */
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static int log_fd = -1;
static bool log_to_syslog;
static int log_pid;
static int log_level = LOG_INFO;
static bool log_trace;
static bool log_to_file;
static unsigned int log_size;	/* limit of the log file, 0 for none */
static off_t log_written;	/* bytes in the log file */

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
	log_to_file = log_to_syslog = false;
	if (file && *file) {
		struct stat st;

		log_fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			      0600);
		if (log_fd >= 0) {
			log_to_file = true;
			if (!fstat(log_fd, &st))
				log_written = st.st_size;
			return;
		}
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
 * @size:	bytes, 0 for no limit
 *
 * A message that would grow the file beyond @size empties it first: a
 * pod's disk is small, and the newest messages are the useful ones.
 */
void log_set_size(unsigned int size)
{
	log_size = size;
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
	if (log_to_file && log_size) {
		if (log_written + n > (off_t)log_size &&
		    !ftruncate(log_fd, 0))
			log_written = 0;
		log_written += n;
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
