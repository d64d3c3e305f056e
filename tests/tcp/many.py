#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Many concurrent TCP connections, for tests/integration/t_tcp_many.sh.

  many.py server ADDRESS PORT
  many.py client ADDRESS PORT COUNT BYTES MAX_SECONDS [HOLD_DIR]

The server echoes every connection until its end of stream, then closes.
The client opens COUNT connections at once; with HOLD_DIR, it then
writes the number of connections open to HOLD_DIR/connected and waits
(at most 20 s) for HOLD_DIR/go, so that the test can look at the backend
while all of them are open.  Then
each connection sends BYTES of its own data, shuts its write side down,
and must read back exactly that data.  The client prints one summary line
and exits 0 only if every connection succeeded, all within MAX_SECONDS
of the start of the exchanges.
"""

import asyncio
import hashlib
import os
import random
import resource
import sys
import time

CHUNK = 16384
TIMEOUT = 60
HOLD_MAX = 20


def raise_nofile():
    """Allow one descriptor per connection, and some."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def echo(reader, writer):
    """Return everything a connection sends, then close it."""
    try:
        while True:
            data = await reader.read(CHUNK)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    writer.close()


async def serve(addr, port):
    """Echo connections until killed."""
    server = await asyncio.start_server(echo, addr, port, backlog=4096,
                                        reuse_address=True)
    async with server:
        await server.serve_forever()


async def exchange(conn, data):
    """Send data on an open connection, read it back to the end.

    Return: None if the echo is exact, else what went wrong
    """
    reader, writer = conn
    writer.write(data)
    await writer.drain()
    writer.write_eof()
    back = bytearray()
    while True:
        part = await reader.read(CHUNK * 4)
        if not part:
            break
        back += part
    writer.close()
    if back != data:
        return (f"echo of {len(back)} bytes, sha256 "
                f"{hashlib.sha256(back).hexdigest()[:12]}, for "
                f"{len(data)} bytes sent")
    return None


async def hold(hold_dir, count):
    """Tell the test how many connections are open, wait for its go."""
    with open(os.path.join(hold_dir, "connected"), "w") as f:
        f.write(f"{count}\n")
    for _ in range(HOLD_MAX * 10):
        if os.path.exists(os.path.join(hold_dir, "go")):
            return
        await asyncio.sleep(0.1)


async def run_clients(addr, port, count, size, hold_dir):
    """Open count connections, then exchange data on all of them.

    Return: list of (connection index, problem) for the failed ones
    """
    opens = await asyncio.gather(
        *(asyncio.open_connection(addr, port) for _ in range(count)),
        return_exceptions=True)
    bad = [(i, f"connect: {o!r}") for i, o in enumerate(opens)
           if isinstance(o, BaseException)]
    if hold_dir:
        await hold(hold_dir, count - len(bad))
    start = time.monotonic()
    jobs = {i: exchange(o, random.Random(i).randbytes(size))
            for i, o in enumerate(opens) if not isinstance(o, BaseException)}
    results = await asyncio.gather(*jobs.values(), return_exceptions=True)
    for i, r in zip(jobs, results):
        if r is not None:
            bad.append((i, r if isinstance(r, str) else repr(r)))
    return bad, time.monotonic() - start


def client(addr, port, count, size, hold_dir, max_secs):
    """Run the client and print a summary; exit 1 on any failure.

    max_secs: most seconds the exchanges may take once all are connected
    """
    try:
        bad, secs = asyncio.run(asyncio.wait_for(
            run_clients(addr, port, count, size, hold_dir), TIMEOUT))
    except asyncio.TimeoutError:
        print(f"not done after {TIMEOUT} s")
        sys.exit(1)
    if bad:
        first = "; ".join(f"#{i}: {why}" for i, why in sorted(bad)[:5])
        print(f"{len(bad)} of {count} connections failed: {first}")
        sys.exit(1)
    if secs > max_secs:
        print(f"{count} connections echoed {size} bytes each intact, but "
              f"in {secs:.1f} s, more than {max_secs} s")
        sys.exit(1)
    print(f"{count} connections echoed {size} bytes each intact "
          f"in {secs:.1f} s")


def main():
    """Parse the command line, run one side."""
    args = sys.argv[1:]
    raise_nofile()
    if len(args) == 3 and args[0] == "server":
        asyncio.run(serve(args[1], int(args[2])))
    elif len(args) in (6, 7) and args[0] == "client":
        client(args[1], int(args[2]), int(args[3]), int(args[4]),
               args[6] if len(args) == 7 else None, float(args[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
