"""How many password attempts the dashboard takes: per client address and in all, per minute.

The wrong-password delay slept in the session that guessed, so eight browser tabs (or a script
opening eight sessions) guessed eight times in 3.7 s. This limiter is one per server process:
an attempt is counted before the password is compared, so parallel guesses count too; past
`per_client` attempts in the window from one address, or `overall` from all of them, the form
answers "too many attempts, wait N s" without comparing. A right password clears its
address's count.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque

PER_CLIENT = 5
OVERALL = 30
WINDOW_SECONDS = 60.0


class LoginLimiter:
    def __init__(self, per_client: int = PER_CLIENT, overall: int = OVERALL, window: float = WINDOW_SECONDS,
                 clock=time.monotonic):
        self.per_client, self.overall, self.window, self.clock = per_client, overall, window, clock
        self._lock = threading.Lock()
        self._by_client: dict[str, deque] = defaultdict(deque)
        self._all: deque = deque()

    def attempt(self, client: str) -> float:
        """0 when this attempt may compare the password (and it is counted), else seconds to wait."""
        with self._lock:
            now = self.clock()
            mine = self._by_client[client]
            for q in (mine, self._all):
                while q and q[0] <= now - self.window:
                    q.popleft()
            for q, limit in ((mine, self.per_client), (self._all, self.overall)):
                if len(q) >= limit:
                    return max(0.1, q[0] + self.window - now)
            mine.append(now)
            self._all.append(now)
            return 0.0

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._by_client.pop(client, None)


LIMITER = LoginLimiter()  # the server process's one limiter: Streamlit runs every session in it
