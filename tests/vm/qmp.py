#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qmp.py - run QMP commands on a QEMU monitor socket, in order.

    qmp.py SOCKET 'COMMAND [JSON-ARGUMENTS]' ... [--event=NAME[:SECONDS]]

Each command's answer is printed as a line of JSON; the first error ends
the run with status 1.  --event=NAME waits (up to SECONDS, default 30) for
an asynchronous event of that name after the commands before it, and
prints it: device_del, say, only asks the guest, and QEMU tells with
DEVICE_DELETED when the guest let go of the device.
"""
import json
import socket
import sys
import time


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(sys.argv[1])
    f = s.makefile("rw")
    events = []

    def read_msg():
        """The next message; an event is also kept in events."""
        line = f.readline()
        if not line:
            raise ConnectionError("QEMU closed the monitor")
        msg = json.loads(line)
        if "event" in msg:
            events.append(msg)
        return msg

    def call(cmd, args=None):
        req = {"execute": cmd}
        if args:
            req["arguments"] = args
        f.write(json.dumps(req) + "\n")
        f.flush()
        while "event" in (msg := read_msg()):
            pass
        return msg

    def wait_event(name, secs):
        deadline = time.monotonic() + secs
        while not (got := [e for e in events if e["event"] == name]):
            left = deadline - time.monotonic()
            try:
                if left <= 0:
                    raise TimeoutError
                s.settimeout(left)
                read_msg()
            except TimeoutError:
                raise TimeoutError("no %s event" % name) from None
        return got[0]

    read_msg()  # greeting
    call("qmp_capabilities")
    for arg in sys.argv[2:]:
        if arg.startswith("--event="):
            name, _, secs = arg[len("--event="):].partition(":")
            try:
                e = wait_event(name, float(secs or 30))
            except (TimeoutError, ConnectionError) as err:
                print("qmp: %s" % err, file=sys.stderr)
                return 1
            print(json.dumps(e))
            continue
        cmd, _, rest = arg.partition(" ")
        r = call(cmd, json.loads(rest) if rest.strip() else None)
        print(json.dumps(r))
        if "error" in r:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
