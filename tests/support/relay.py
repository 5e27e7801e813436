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
    """

    def __init__(self, listen_host, upstream, rate=None):
        self.listen_host, self.upstream, self.rate = listen_host, upstream, rate
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

    def _pipe(self, src, dst, towards_client):
        started = time.monotonic()
        moved = 0
        try:
            while True:
                data = src.recv(1 << 16)
                if not data:
                    break
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
