"""Inside a jail with no network: 127.0.0.1:PORT forwarded to a Unix socket outside, then
the command run. ``python -I -S jail_forward.py SOCKET PORT [SOCKET PORT ...] -- COMMAND...``

The real client in a jail (harness/jail.py) still talks to the scripted model, which
listens on a SOCKET bound into the jail (and its http hooks to their servers on loopback,
each through a socket of its own). Each port listens before the command starts, so its
first request finds it; a child process forwards, and this one becomes the command, so the
command's exit status, signals and pipes are its own. Standard library only: it starts in
a few milliseconds, without Hook Lab's imports.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading


def pump(source: socket.socket, target: socket.socket) -> None:
    """Bytes from ``source`` to ``target`` until either end closes; then both are shut,
    which ends the other direction's pump too (HTTP never half-closes here)."""
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            target.sendall(data)
    for end in (source, target):
        with contextlib.suppress(OSError):
            end.shutdown(socket.SHUT_RDWR)
    source.close()


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        inside, _ = listener.accept()
        outside = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            outside.connect(path)
        except OSError:
            inside.close()
            continue
        inside.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=pump, args=(inside, outside), daemon=True).start()
        threading.Thread(target=pump, args=(outside, inside), daemon=True).start()


def _listen(port: str) -> socket.socket:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(port)))
    listener.listen(64)
    return listener


def main(argv: list[str]) -> None:
    if "--" not in argv:
        sys.exit("usage: jail_forward.py SOCKET PORT [SOCKET PORT ...] -- COMMAND...")
    pairs, command = argv[: argv.index("--")], argv[argv.index("--") + 1 :]
    if not command or len(pairs) % 2:
        sys.exit("usage: jail_forward.py SOCKET PORT [SOCKET PORT ...] -- COMMAND...")
    routes = [(_listen(port), path) for path, port in zip(pairs[::2], pairs[1::2], strict=True)]
    if os.fork() == 0:
        # The forwarder holds none of the command's pipes: their reader outside waits for
        # the command's end, not this process's (the jail's end takes it with it).
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        for listener, path in routes[1:]:
            threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
        _serve(*routes[0])
        os._exit(0)
    for listener, _ in routes:
        listener.close()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
