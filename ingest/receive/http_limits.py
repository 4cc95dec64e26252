"""The receiver's HTTP server with limits: a cap on open connections, and a timeout per read.

ThreadingHTTPServer starts a thread per connection and waits forever for a slow client: 250
slow unauthenticated connections held 255 threads. Here a connection past the cap is answered
503 at once and closed (an exporter retries), and every read of a request line, header or body
(and the wait for the next request on a kept-alive connection) gives up after `idle_timeout`.
"""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer

DEFAULT_MAX_CONNECTIONS = 64
DEFAULT_IDLE_TIMEOUT = 30.0

_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
         b"Connection: close\r\nContent-Length: 75\r\n\r\n"
         b'{"code": 14, "message": "too many open connections to the receiver; retry"}')


class BoundedHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, handler, max_connections: int = DEFAULT_MAX_CONNECTIONS,
                 idle_timeout: float = DEFAULT_IDLE_TIMEOUT):
        self.slots = threading.BoundedSemaphore(max_connections)
        self.idle_timeout = idle_timeout
        super().__init__(address, handler)

    def process_request(self, request, client_address):
        if not self.slots.acquire(blocking=False):
            try:
                request.settimeout(1.0)
                request.sendall(_BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        request.settimeout(self.idle_timeout)
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()
