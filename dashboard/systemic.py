"""Which verified=false patterns are systemic, ranked by what makes a fault systemic.

A write-path fault shows as one error fingerprint concentrated in one tool and one agent
version, hitting many users, and rising against the period before. Retries that failed the
same way again are one more sign of it, not the gate: a read-back mismatch never retries,
yet 79 steps of one fingerprint, for 47 users, all on version 2.4.0 and new this week, is the
week's fault, well above 8 timeouts that retried. Pure pandas: the page and any report rank
alike.
"""

from __future__ import annotations

import math

import pandas as pd

MIN_STEPS = 10        # a pattern needs at least this many steps to be called systemic
USERS_BROAD = 20      # users affected at which breadth counts fully
STRONG = 0.6          # a signal at or above this counts towards "systemic"
NEEDED = 2            # strong signals a pattern needs, with MIN_STEPS, to be called systemic

RULE = (f"ranked by size × (users affected, share in one agent version, rise against the period before, "
        f"retries that failed the same way); systemic: at least {MIN_STEPS} steps and {NEEDED} of these "
        f"signals at {STRONG:.0%} or more (users: {USERS_BROAD} count fully)")


def rank_systemic(fp: pd.DataFrame, previous: pd.DataFrame | None = None) -> pd.DataFrame:
    """vf_fingerprints rows (+ vf_previous) -> the same rows with each signal (0..1), a score,
    `systemic`, a plain-words `why`, best first."""
    out = fp.copy()
    if out.empty:
        for c in ("prev_steps", "breadth", "concentration", "rise", "retries", "score", "systemic", "why"):
            out[c] = pd.Series(dtype=object)
        return out
    prev = previous if previous is not None and not previous.empty else pd.DataFrame(
        columns=["tool", "fingerprint", "prev_steps"])
    out = out.merge(prev[["tool", "fingerprint", "prev_steps"]], on=["tool", "fingerprint"], how="left")
    out["prev_steps"] = out["prev_steps"].fillna(0).astype(int)
    out["retried_same_error"] = out["retried_same_error"].fillna(0).astype(int)  # no attempts recorded
    steps = out["steps"].clip(lower=1)
    out["breadth"] = (out["users"] / USERS_BROAD).clip(upper=1.0)
    out["concentration"] = (out["top_version_steps"].fillna(0) / steps).clip(upper=1.0)
    out["rise"] = ((out["steps"] - out["prev_steps"]) / steps).clip(lower=0.0)
    out["retries"] = (out["retried_same_error"] / steps).clip(upper=1.0)
    signals = out[["breadth", "concentration", "rise", "retries"]]
    out["score"] = out["steps"].map(lambda n: math.log2(1 + n)) * signals.sum(axis=1)
    out["systemic"] = (out["steps"] >= MIN_STEPS) & ((signals >= STRONG).sum(axis=1) >= NEEDED)
    out["why"] = [_why(r) for r in out.itertuples(index=False)]
    return out.sort_values(["score", "steps", "tool", "fingerprint"], ascending=[False, False, True, True]
                           ).reset_index(drop=True)


def _why(r) -> str:
    parts = [f"{int(r.steps)} steps", f"{int(r.users)} users"]
    if r.top_version is not None and not (isinstance(r.top_version, float) and math.isnan(r.top_version)):
        share = r.concentration
        parts.append(f"only on version {r.top_version}" if share >= 0.999 else f"{share:.0%} on version {r.top_version}")
    parts.append("new against the period before" if r.prev_steps == 0 else
                 f"{int(r.prev_steps)} the period before")
    if r.retried_same_error:
        parts.append(f"{int(r.retried_same_error)} failed again on retry")
    return ", ".join(parts)
