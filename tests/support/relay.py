# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A TCP relay a test starts in front of a registry: it counts what passes, and can go away and come back."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import socket
import threading
import time


class Relay(object):
    """Listens on ``listen_host`` (a free port, kept across ``stop()``/``start()``) and relays to ``upstream``.

    ``to_upstream`` counts the bytes clients sent, ``to_client`` the bytes they received; ``rate`` limits
    bytes per second towards clients (so a pull lasts long enough to be cut). ``stop()`` refuses new
    connections and resets the open ones: "the registry went away".

    ``hold=(count, beyond)`` makes pulls run side by side however late their pods start: a connection that
    has sent ``beyond`` bytes to its client waits until ``count`` connections wait so, then all go on
    together (``held_together`` is then True). After ``hold_seconds`` they go on anyway and
    ``held_together`` stays False, for the test to fail on.
    """

    def __init__(self, listen_host, upstream, rate=None, hold=None, hold_seconds=300):
        self.listen_host, self.upstream, self.rate = listen_host, upstream, rate
        self.hold, self.hold_seconds = hold, hold_seconds
        self.gate, self.waiting, self.held_together = threading.Event(), 0, False
        self.port, self.server, self.acceptor = None, None, None
        self.to_upstream = self.to_client = 0
        self.conns = []
        self.running = False
        self.lock = threading.Lock()

    def start(self):
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind((self.listen_host, self.port or 0))
        self.server.listen(64)
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.running = True
        self.acceptor = threading.Thread(target=self._accept, args=(self.server,), daemon=True)
        self.acceptor.start()
        return self

    def reset(self):
        with self.lock:
            self.to_upstream = self.to_client = 0

    def stop(self):
        """Refuse new connections and reset the open ones."""
        self.running = False
        if self.server:
            self.acceptor.join(5)
            self.server.close()
            self.server = None
        with self.lock:
            for conn in self.conns:
                _close(conn)
            self.conns = []

    def _accept(self, server):
        while self.running:
            try:
                client, _addr = server.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            client.settimeout(None)
            try:
                upstream = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.conns.extend([client, upstream])
            threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    def _wait_at_gate(self):
        """Wait until ``hold[0]`` connections wait here (or ``hold_seconds`` passed)."""
        with self.lock:
            self.waiting += 1
            if self.waiting >= self.hold[0]:
                self.held_together = True
                self.gate.set()
        self.gate.wait(self.hold_seconds)
        self.gate.set()

    def _pipe(self, src, dst, towards_client):
        started = time.monotonic()
        moved = 0
        gated = towards_client and self.hold is not None
        try:
            while True:
                data = src.recv(1 << 16)
                if not data:
                    break
                if gated and moved + len(data) > self.hold[1]:
                    gated = False
                    self._wait_at_gate()
                    started, moved = time.monotonic(), 0
                dst.sendall(data)
                moved += len(data)
                with self.lock:
                    if towards_client:
                        self.to_client += len(data)
                    else:
                        self.to_upstream += len(data)
                if towards_client and self.rate:
                    ahead = moved / float(self.rate) - (time.monotonic() - started)
                    if ahead > 0:
                        time.sleep(ahead)
        except OSError:
            pass
        finally:
            _close(src)
            _close(dst)


def _close(sock):
    """Shut down (which wakes the other direction's recv) and close."""
    for end in (lambda: sock.shutdown(socket.SHUT_RDWR), sock.close):
        try:
            end()
        except OSError:
            pass
