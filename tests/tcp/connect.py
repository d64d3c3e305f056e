#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What a client sees when it connects, and how fast.

  connect.py ADDRESS PORT SECONDS

Connects, and if that succeeds, waits for the first byte or the end of
the connection; gives up after SECONDS in all.  Prints one line,
"OUTCOME MILLISECONDS [detail]", OUTCOME being one of:
  refused      connect() failed with ECONNREFUSED (a RST to the SYN)
  unreachable  connect() failed with EHOSTUNREACH or ENETUNREACH (ICMP)
  error        connect() failed otherwise (detail: the errno name)
  closed       connected, then the end of stream came with no data
  reset        ECONNRESET, during or after connect()
  data         connected and a byte came
  timeout      nothing happened within SECONDS
Exits 0 whenever it could tell; tests judge the outcome.
"""

import errno
import socket
import sys
import time


def outcome(addr, port, seconds):
    """Return (outcome, detail) of one connection attempt."""
    deadline = time.monotonic() + seconds
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    sock = socket.socket(fam, socket.SOCK_STREAM)
    sock.settimeout(seconds)
    try:
        sock.connect((addr, port))
    except socket.timeout:
        return "timeout", "connect"
    except OSError as e:
        if e.errno == errno.ECONNREFUSED:
            return "refused", ""
        if e.errno == errno.ECONNRESET:
            return "reset", "during connect"
        if e.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
            return "unreachable", errno.errorcode[e.errno]
        return "error", errno.errorcode.get(e.errno, str(e.errno))
    sock.settimeout(max(deadline - time.monotonic(), 0.001))
    try:
        data = sock.recv(1)
    except socket.timeout:
        return "timeout", "connected, no data nor end of stream"
    except ConnectionResetError:
        return "reset", ""
    except OSError as e:
        return "error", errno.errorcode.get(e.errno, str(e.errno))
    return ("data", "") if data else ("closed", "")


def main():
    """Parse the command line, try once, print the outcome."""
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    start = time.monotonic()
    what, detail = outcome(sys.argv[1], int(sys.argv[2]),
                           float(sys.argv[3]))
    ms = int((time.monotonic() - start) * 1000)
    print(f"{what} {ms} {detail}".rstrip())


if __name__ == "__main__":
    main()
