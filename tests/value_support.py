"""The comparison of told and asked values, called as the value checks call it, for tests that pin how one
reply's values meet one write's record (tests/test_value_checks15*.py)."""

from __future__ import annotations

import json

import pytest

from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.stored_values import stored_values
from trace_audit.queries.reading.told_times import one_clause_time
from trace_audit.queries.reading.value_checks import Comparer, _compared
from trace_audit.queries.reading.value_run import askable


def value_tools():
    """(value reader, comparer) of the shipped lexicon: build once per test module."""
    lex = compile_lexicon()
    return lex.value_reader(), Comparer(lex.data)


def told_verdicts(tools, text, args, result, error, at, zone) -> list[tuple[str, str]]:
    """(field, verdict) for each value the reply tells, against the write's args and returned record."""
    reader, cmp = tools
    stored = stored_values(json.dumps(args), json.dumps(result) if result is not None else None, error, None,
                           cmp.patterns)
    return [(r[1], r[-1]) for r in _compared(cmp, reader.extract(text), stored, at, zone, zone_known=True)]


def asked_verdicts(tools, text, args, at, zone) -> list[tuple[str, str]]:
    """(field, verdict) for each value the user asks for, against the write's args."""
    reader, cmp = tools
    stored = stored_values(json.dumps(args), None, None, None, [])
    wants, join = one_clause_time(text, askable(reader.extract(text)))
    return [(r[1], r[-1]) for r in _compared(cmp, wants, stored, at, zone, True, join_days=join)]


@pytest.fixture(scope="module")
def tools():
    """The value reader and comparer, once per test module that imports this fixture."""
    return value_tools()


def verdicts_at(when: str, where: str):
    """(told, asked): told_verdicts and asked_verdicts for a test module whose turns happen at `when`
    in the zone `where` unless a test says otherwise."""
    def told(tools, text, args, result=None, error=None, at=when, zone=where):
        return told_verdicts(tools, text, args, result, error, at, zone)

    def asked(tools, text, args, at=when, zone=where):
        return asked_verdicts(tools, text, args, at, zone)

    return told, asked
