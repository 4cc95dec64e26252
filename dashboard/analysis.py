"""Pure analysis over query results: period comparison, significance, "what changed".

No Streamlit and no database here, so the dashboard pages and the weekly report
say exactly the same thing about the same numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

# The flagging rule, stated once and quoted in the UI and the report. Each (tool, measure) pair is
# tested with Fisher's exact test, one-sided (is this period's rate higher than the previous
# one's?): exact at any count, which matters because a tool's week is often a few dozen calls
# (5 failures in 30 against 0 in 30 is p = 0.026 exact; the normal approximation said 0.0098).
# Testing every tool and measure at once, some pairs would cross any threshold by chance, so the
# p-values are adjusted with Benjamini-Hochberg across all pairs tested, and a rise is flagged
# when its adjusted p (q, the false-discovery rate) is below ALPHA. Both from SciPy
# (scipy.stats.fisher_exact, scipy.stats.false_discovery_control).
ALPHA = 0.01
MIN_CALLS = 30
TEST_NAME = "one-sided Fisher's exact test, Benjamini-Hochberg adjusted across tools and measures"
TEST_RULE = f"{TEST_NAME}, q < {ALPHA:g}, at least {MIN_CALLS} calls in each period"

RATES = {
    "verified_false": ("checked", "verified=false rate"),
    "failed": ("calls", "failure rate"),
    "retried": ("calls", "retry rate"),
}


def rise_p(x1: int, n1: int, x0: int, n0: int) -> float:
    """One-sided exact p for 'rate x1/n1 is higher than rate x0/n0' (Fisher's exact test)."""
    if n1 <= 0 or n0 <= 0:
        return 1.0
    from scipy.stats import fisher_exact  # scipy.stats takes ~0.3 s to import: only when testing

    return float(fisher_exact([[x1, n1 - x1], [x0, n0 - x0]], alternative="greater").pvalue)


def fdr_adjusted(ps: list[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (q) of `ps`, in the same order."""
    if not ps:
        return []
    from scipy.stats import false_discovery_control

    return [float(q) for q in false_discovery_control(ps, method="bh")]


def tool_periods(compare: pd.DataFrame) -> pd.DataFrame:
    """tool_compare rows (tool, period, counts) -> one row per tool with cur_* and prev_* columns."""
    cols = ["calls", "checked", "failed", "verified_false", "retried", "problems"]
    if compare.empty:
        return pd.DataFrame(columns=["tool"] + [f"{p}_{c}" for p in ("cur", "prev") for c in cols])
    wide = compare.pivot_table(index="tool", columns="period", values=cols, aggfunc="sum", fill_value=0)
    out = pd.DataFrame(index=wide.index)
    for c in cols:
        out[f"cur_{c}"] = wide[(c, "current")] if (c, "current") in wide.columns else 0
        out[f"prev_{c}"] = wide[(c, "previous")] if (c, "previous") in wide.columns else 0
    return out.reset_index().astype({f"{p}_{c}": "int64" for p in ("cur", "prev") for c in cols})


@dataclass(frozen=True)
class RateRise:
    tool: str
    measure: str          # key of RATES
    label: str
    cur_rate: float
    prev_rate: float
    cur_n: int
    prev_n: int
    p: float              # Fisher's exact, one-sided
    q: float              # p adjusted (Benjamini-Hochberg) across every pair tested with it

    def sentence(self) -> str:
        return (f"{self.tool}: {self.label} {pct(self.prev_rate)} → {pct(self.cur_rate)} "
                f"(p {p_text(self.p)}, q {p_text(self.q)}; {self.prev_n} → {self.cur_n} calls)")


def significant_rises(compare: pd.DataFrame, measures=("verified_false", "failed", "retried")) -> list[RateRise]:
    """Tools whose rate rose significantly against the previous period (see TEST_RULE)."""
    tested = []
    for row in tool_periods(compare).itertuples(index=False):
        for m in measures:
            den, label = RATES[m]
            n1, n0 = getattr(row, f"cur_{den}"), getattr(row, f"prev_{den}")
            x1, x0 = getattr(row, f"cur_{m}"), getattr(row, f"prev_{m}")
            if n1 < MIN_CALLS or n0 < MIN_CALLS:
                continue
            tested.append((row.tool, m, label, x1, n1, x0, n0, rise_p(x1, n1, x0, n0)))
    qs = fdr_adjusted([t[-1] for t in tested])
    out = [RateRise(tool, m, label, x1 / n1, x0 / n0, n1, n0, p, q)
           for (tool, m, label, x1, n1, x0, n0, p), q in zip(tested, qs)
           if q < ALPHA and x1 / n1 > x0 / n0]
    return sorted(out, key=lambda r: (r.q, r.p))


def worst_tool(compare: pd.DataFrame, min_calls: int = MIN_CALLS) -> tuple[str, float, int] | None:
    """(tool, share of calls that failed or were not verified, calls) in the period; None if no tool qualifies."""
    wide = tool_periods(compare)
    wide = wide[wide["cur_calls"] >= min_calls]
    if wide.empty:
        return None
    rate = wide["cur_problems"] / wide["cur_calls"]
    i = rate.idxmax()
    if rate[i] == 0:
        return None
    return str(wide.loc[i, "tool"]), float(rate[i]), int(wide.loc[i, "cur_calls"])


def kpis(daily: pd.DataFrame, stuck_now: int) -> dict[str, dict[str, float | None]]:
    """overview_daily rows (both periods) -> {metric: {current, previous}} with the derived verified rate."""
    out: dict[str, dict[str, float | None]] = {}
    for metric in ("turns", "incidents", "write_steps", "verified_writes", "verified_false"):
        sums = daily.groupby("period")[metric].sum() if not daily.empty else {}
        out[metric] = {p: int(sums.get(p, 0)) for p in ("current", "previous")}
    out["verified_rate"] = {
        p: (out["verified_writes"][p] / out["write_steps"][p]) if out["write_steps"][p] else None
        for p in ("current", "previous")
    }
    out["stuck_now"] = {"current": stuck_now, "previous": None}
    return out


def current(daily: pd.DataFrame) -> pd.DataFrame:
    """The chosen period's days of an overview_daily result."""
    return daily[daily["period"] == "current"] if not daily.empty else daily


def pct(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{digits}f}%"


def p_text(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"= {p:.3f}"


def change(cur: float | None, prev: float | None) -> str:
    """'+12 (+40%)' style delta for counts."""
    if cur is None or prev is None:
        return ""
    d = cur - prev
    if prev:
        return f"{d:+,.0f} ({d / prev:+.0%})"
    return f"{d:+,.0f}"


def what_changed(k: dict, rises: list[RateRise], new_versions: list[tuple[str, object]],
                 new_fingerprints: pd.DataFrame | None = None, tz: str = "UTC") -> list[str]:
    """One line per thing that moved, most important first."""
    lines = []
    for r in rises:
        lines.append(r.sentence() + " — rose significantly")
    for version, first in new_versions:
        lines.append(f"agent version {version} first seen {fmt_ts(first, tz)}")
    inc = k["incidents"]
    if inc["current"] != inc["previous"]:
        lines.append(f"said-but-not-done incidents {inc['previous']:,} → {inc['current']:,} "
                     f"({change(inc['current'], inc['previous'])})")
    vr = k["verified_rate"]
    if vr["current"] is not None and vr["previous"] is not None and abs(vr["current"] - vr["previous"]) >= 0.005:
        lines.append(f"verified rate of writes {pct(vr['previous'])} → {pct(vr['current'])}")
    t = k["turns"]
    if t["previous"] and abs(t["current"] - t["previous"]) / t["previous"] >= 0.1:
        lines.append(f"turns {t['previous']:,} → {t['current']:,} ({change(t['current'], t['previous'])})")
    if new_fingerprints is not None and not new_fingerprints.empty:
        top = new_fingerprints.iloc[0]
        lines.append(f"{len(new_fingerprints)} new error pattern(s); largest: {top['tool']}: "
                     f"“{top['fingerprint']}” ({int(top['steps'])} steps)")
    if not lines:
        lines.append("nothing moved significantly against the previous period")
    return lines


def new_versions(options: pd.DataFrame, since, until) -> list[tuple[str, object]]:
    """Agent versions whose first turn falls inside [since, until)."""
    v = options[(options["facet"] == "agent_version")]
    v = v[(v["first_ts"] >= since) & (v["first_ts"] < until)]
    return [(str(r.value), r.first_ts) for r in v.sort_values("first_ts").itertuples(index=False)]


def onset(version_rates: pd.DataFrame, tool: str, prev_rate: float) -> dict | None:
    """Where a tool's verified=false jump started: the agent version with the highest rate
    in the period that is clearly above the previous period's rate (z-test as TEST_RULE,
    minimum calls relaxed to 10 within one version)."""
    v = version_rates[version_rates["tool"] == tool]
    best = None
    for r in v.itertuples(index=False):
        if r.checked_steps < 10:
            continue
        rate = r.verified_false / r.checked_steps
        # compare against the previous period's rate as a fixed baseline
        expected = prev_rate * r.checked_steps
        sd = math.sqrt(max(prev_rate * (1 - prev_rate) * r.checked_steps, 1e-9))
        z = (r.verified_false - expected) / sd
        if z > 2.33 and (best is None or rate > best["rate"]):
            best = {"agent_version": r.agent_version, "rate": rate, "steps": int(r.checked_steps),
                    "verified_false": int(r.verified_false), "first_seen": r.version_first_seen,
                    "first_in_period": r.first_seen_in_period}
    return best


def fmt_ts(ts, tz: str = "UTC") -> str:
    """A stored instant as local time in `tz` (the report and pages state the zone once)."""
    if ts is None or ts is pd.NaT or (isinstance(ts, float) and math.isnan(ts)):
        return "—"
    try:
        t = pd.Timestamp(ts)
        t = t.tz_localize("UTC") if t.tzinfo is None else t
        suffix = " UTC" if tz == "UTC" else ""
        return t.tz_convert(tz).strftime("%Y-%m-%d %H:%M") + suffix
    except (ValueError, TypeError):
        return str(ts)
