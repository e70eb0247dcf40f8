"""Inside the sandbox: listen on 127.0.0.1:PORT, pass every connection on to the model API relay's Unix
socket, and run the agent's command.

``python relay_forward.py SOCKET PORT -- COMMAND...`` binds the port first (so the command never finds it
closed), forks a forwarder and becomes the command. The forwarder lives as long as the sandbox. Standard
library only: it runs on the agents' Python, which never holds actloop (the file is copied into the relay's
directory, which the sandbox mounts read-only).
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading

CHUNK = 65536


def pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy ``source`` to ``sink`` until either closes, then close ``sink``'s sending side."""
    with contextlib.suppress(OSError):
        while data := source.recv(CHUNK):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def serve(listener: socket.socket, relay: str) -> None:
    """Forward each accepted connection to the Unix socket ``relay``."""
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(relay)
        except OSError:
            client.close()
            upstream.close()
            continue
        for source, sink in ((client, upstream), (upstream, client)):
            threading.Thread(target=pump, args=(source, sink), daemon=True).start()


def main(argv: list[str]) -> None:
    relay, port, separator, *command = argv
    if separator != "--" or not command:
        raise SystemExit("usage: relay_forward.py SOCKET PORT -- COMMAND...")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(port)))
    listener.listen(64)
    if os.fork() == 0:  # the forwarder dies with the sandbox's process namespace
        serve(listener, relay)
        os._exit(0)
    listener.close()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
