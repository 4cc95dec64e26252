"""Dev set 15W, check 1 (unbacked claimed action): the mechanisms behind its false alarms and misses,
each in words of its own (must and must-not)."""

from __future__ import annotations

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.tools import ToolTyper


@pytest.fixture(scope="module")
def typer():
    return ToolTyper(compile_lexicon(Config()).data)


# a dotted name of three parts says service.thing.verb: the first part is a noun even where it is a verb too
@pytest.mark.parametrize("name, action", [
    ("show.seat.lock", "update"), ("play.tickets.reserve", "book"), ("show.booking.create", "create"),
    # the first part still decides where the words after it hold no verb
    ("book.table.v1", "book"), ("order.items.add", "create"),
])
def test_the_first_part_of_a_dotted_name_is_its_service(typer, name, action):
    c = typer.classify(name)
    assert c.is_write and c.action == action, c


@pytest.mark.parametrize("name", ["lock.status.get", "show_order", "show.seats.list", "post.comments.search",
                                  # a record's detail, singular or plural, is read
                                  "order.detail", "order_detail", "shop.order.detail", "orders/detail"])
def test_a_service_word_or_a_detail_read_writes_nothing(typer, name):
    c = typer.classify(name)
    assert not c.is_write, c
