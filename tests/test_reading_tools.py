"""Write-tool recognition from how tools are really named, and `rules explain-tools`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from trace_audit.queries.config import Config
from trace_audit.queries.lexicon import compile_lexicon
from trace_audit.queries.reading.tools import ToolTyper, words


@pytest.fixture(scope="module")
def typer():
    return ToolTyper(compile_lexicon(Config()).data)


@pytest.mark.parametrize("name, action", [
    ("createReminder", "create"), ("calendar_create_event", "create"), ("todo.add", "create"),
    ("reminder_create", "create"), ("events.insert", "create"), ("todo/add", "create"),
    ("POST /v1/reminders", "create"), ("PATCH /users/me/address", "update"), ("DELETE /events/7", "delete"),
    ("mcp__calendar__create_event", "create"), ("Todoist.AddTask", "create"), ("gcal-events-insert", "create"),
    ("cancel_pending_order", "delete"), ("order_refund", "refund"), ("book_table", "book"),
    ("update_reservation_flights", "update"), ("send_certificate", "send"), ("todo_list_add", "create"),
    # short verbs as APIs and CLIs write them, and topping up a card or wallet
    ("cal_v3.evt.rm", "delete"), ("notes/del", "delete"), ("oyster/topup", "book"),
    ("transit_card_topup", "book"), ("wallet.top_up", "book"), ("phone.recharge", "book"),
    # making a transfer or a payout moves money
    ("wise.transfers.create", "transfer"), ("bank.transfer.submit", "transfer"), ("payouts.create", "transfer"),
    ("POST /v1/transfers", "transfer"), ("transfer_money", "transfer"), ("wire_transfer", "transfer"),
    ("send_money", "send"), ("calendar_create_event", "create"),
    ("fees.reverse", "refund"), ("waive_fee", "refund"),
    # an action said again writes what the action writes
    ("bookings.rebook", "book"), ("shop.purchases.reorder", "book"), ("ticket/reissue", "book"),
    ("loan.repay", "book"), ("invites.resend", "send"), ("tasks.recreate", "create"),
    # a tracker's record is an issue (a noun): its verb decides; moving it along its workflow changes it
    ("tracker.issue.transition", "update"), ("gitlab.issues.create", "create"), ("boarding_pass.issue", "book"),
    # a send for later makes the job that will send (a reminder, a scheduled email): a create
    ("alerts.notify.schedule", "create"), ("sms.send_later", "create"), ("mail/send_scheduled", "create"),
    ("notify_user", "send"), ("gmail.drafts.send", "send"),
    # a parcel sent elsewhere, a cart checked out, a change set committed, a device switched
    ("shipments.divert", "update"), ("express.reroute", "update"), ("basket.checkout", "book"),
    ("vcs.commit", "create"), ("plug.off", "update"), ("hallway.lights.on", "update"), ("siren.arm", "update"),
])
def test_write_tools_in_every_naming_style(typer, name, action):
    c = typer.classify(name)
    assert c.is_write and c.action == action, c


@pytest.mark.parametrize("name", ["get_reminders", "calendar.events.list", "searchFlights", "order_lookup",
                                  "GET /v1/orders", "find_user_id_by_email", "transfer_to_human_agents",
                                  "verify_result", "think", "perm.check", "model_info", "topology.get",
                                  "delivery_status", "stripe.transfers.list", "get_transfer_status",
                                  "transfer_to_agent", "handoff_to_agent", "maps.reverse_geocode",
                                  # re- before a read, or before no verb at all, is no write
                                  "reports.review", "config/reload", "session.refresh", "request_status",
                                  # a device's state read, a redirect's address, commits listed
                                  "plug.on.status", "get_redirect_url", "list_commits"])
def test_read_and_unknown_tools_are_not_writes(typer, name):
    assert not typer.classify(name).is_write


@pytest.mark.parametrize("name, action", [("return_item", "refund"), ("remove_item", "delete"),
                                          ("reserve_room", "book"), ("restore_backup", "update")])
def test_a_verb_the_lexicon_knows_keeps_its_class_though_it_opens_with_re(typer, name, action):
    assert typer.classify(name).action == action


def test_mcp_annotations_decide_over_the_name(typer):
    assert typer.classify("reminders", read_only=False).is_write
    assert not typer.classify("reminders").is_write
    assert not typer.classify("create_preview", read_only=True).is_write
    assert typer.classify("calendar", destructive=True).action == "delete"


def test_config_names_exclude_and_read_names():
    lex = compile_lexicon(Config()).data
    t = ToolTyper(lex, names=["archiveNote"], exclude=["cancel_everything"], read_names=["add_numbers"])
    assert t.classify("archiveNote").reason == "config write_tools.names"
    assert not t.classify("cancel_everything").is_write
    assert not t.classify("add_numbers").is_write


def test_words_split_every_style():
    assert words("mcp__calendar__createEvent") == ["mcp", "calendar", "create", "event"]
    assert words("POST /v1/reminders") == ["post", "v1", "reminders"]
    assert words("gcal-events.insert") == ["gcal", "events", "insert"]


def test_explain_tools_lists_each_tool_and_why(tmp_path):
    from trace_audit.ingest.load.loader import ingest

    src = tmp_path / "t.jsonl"
    rows = [{"record": "task", "task_id": "t1", "status": "success"},
            {"record": "step", "task_id": "t1", "seq": 1, "tool": "calendar_create_event", "status": "success"},
            {"record": "step", "task_id": "t1", "seq": 2, "tool": "lookup\x1b[31m", "status": "success"},
            {"record": "step", "task_id": "t1", "seq": 3, "tool": "reminders", "status": "success",
             "metadata": {"annotations": {"readOnlyHint": False}}}]
    src.write_text("\n".join(json.dumps(r) for r in rows), "utf-8")
    dbp = tmp_path / "w.duckdb"
    ingest([str(src)], str(dbp), progress=False)
    out = subprocess.run([sys.executable, "-m", "trace_audit.cli.main", "rules", "explain-tools", "--db", str(dbp)],
                         capture_output=True, text=True, check=True).stdout
    assert "calendar_create_event" in out and "write verb 'create'" in out
    assert "MCP annotation readOnlyHint=false" in out
    assert "\x1b" not in out and "lookup\\u001b[31m" in out  # stdout is made safe by cli/terminal
    assert "3 tools: 2 write" in out


@pytest.mark.parametrize("name, is_write, action", [
    # a verb said again decides only where no verb the lexicon lists does: a rebooking service's
    # offers are read, taking one books
    ("airline.rebook.offers", False, None), ("airline.rebook.confirm", True, "update"),
    ("carrier.rebook.pick", True, "update"), ("shop.reorder", True, "book"),
    # a request made (a ride, a record) and a fault filed are writes; a request's status is read
    ("taxi.trips.request", True, "create"), ("records_request", True, "create"),
    ("request_history", False, None), ("utility.outage.report", True, "create"),
    ("fetch_report", False, None), ("http_request", False, None), ("http_delete", True, "delete"),
])
def test_words_said_again_and_nouns_first_decide_last(typer, name, is_write, action):
    got = typer.classify(name)
    assert (got.is_write, got.action) == (is_write, action), got


@pytest.mark.parametrize("name", ["spa_order_list", "order_details", "parcel.return.status", "mail_history",
                                  "issue_info", "GET /v1/order/history"])
def test_a_weak_verb_before_a_weak_read_word_names_what_is_read(typer, name):
    assert not typer.classify(name).is_write, typer.classify(name)


@pytest.mark.parametrize("name, action", [("spa_order_cancel", "delete"), ("order", "book"), ("mail.send", "send"),
                                          ("list.order.create", "create"), ("check_and_order", None)])
def test_a_weak_verb_with_no_read_word_after_it_still_writes(typer, name, action):
    c = typer.classify(name)
    assert c.is_write is (action is not None) and c.action == action, c


@pytest.mark.parametrize("name, is_write, action", [
    # reloading a card, a balance or a wallet puts money on it (a top-up); reloading anything else reads
    ("presto.card.reload", True, "book"), ("reload_stored_balance", True, "book"), ("wallet/reload", True, "book"),
    ("nginx.config.reload", False, None), ("browser.tab.reload", False, None), ("card.reload.history", False, None),
    # a cleaning robot set to work is a device switched; a cleaning log read is no write
    ("ecovacs.zone_clean", True, "update"), ("robot.mop", True, "update"), ("dreame.sweep", True, "update"),
    ("get_clean_summary", False, None), ("vacuum.status", False, None),
])
def test_a_verb_read_by_the_thing_the_tool_names(typer, name, is_write, action):
    c = typer.classify(name)
    assert (c.is_write, c.action) == (is_write, action), c


@pytest.mark.parametrize("name, is_write, action", [
    # operations and coding agents: scaling, rolling back, deploying, merging, re-running change things
    ("k8s.scale", True, "update"), ("helm_rollback", True, "update"), ("vercel.deploy", True, "update"),
    ("gitlab.mr.merge", True, "update"), ("pipeline_rerun", True, "update"),
    ("get_scale_status", False, None), ("list_deployments", False, None), ("merge_requests.list", False, None),
    # cover put on a parcel changes it; a record closed is still a close
    ("courier.parcel.insure", True, "update"), ("insurance.quote.get", False, None), ("zendesk.ticket.close", True, "delete"),
    # an offer taken up, a claim settled with its payout: the case changes
    ("quotes.accept", True, "update"), ("insurer.claims.settle", True, "update"), ("acceptInvite", True, "update"),
    ("get_settlement_offer", False, None), ("settlements.list", False, None),
])
def test_operations_tools(typer, name, is_write, action):
    c = typer.classify(name)
    assert (c.is_write, c.action) == (is_write, action), c


@pytest.mark.parametrize("name, action", [
    # MCP server__tool names: the server is no verb, the tool's verb decides
    ("banking__transfer_funds", "transfer"), ("telecom__suspend_line", "update"), ("telecom__port_number", "update"),
    ("helpdesk__reset_password", "update"), ("egov__submit_application", "create"), ("git__git_commit", "create"),
    ("smarthome__lights_off", "update"), ("logistics__reroute_shipment", "update"),
    # Java-style Service.verbNoun and Service.verb
    ("OrderService.cancelOrder", "delete"), ("BookingService.modify", "update"), ("CardService.unblockCard", "update"),
    ("AccountService.freezeCard", "update"), ("DeviceController.reboot", "update"), ("OrderRepository.save", "create"),
    ("SubscriptionManager.terminate", "delete"), ("DocumentService.generatePdf", "create"),
    ("PaymentGateway.authorize", "book"), ("thermostat.setpoint", "update"),
])
def test_mcp_server_and_java_style_write_tools(typer, name, action):
    c = typer.classify(name)
    assert c.is_write and c.action == action, c


@pytest.mark.parametrize("name", ["banking__get_balance", "egov__get_application_status", "github__list_issues",
                                  "BookingService.getBooking", "CustomerService.findCustomerById",
                                  "filesystem__read_file", "thermostat.get_setpoint", "blocks.list"])
def test_mcp_server_and_java_style_read_tools(typer, name):
    assert not typer.classify(name).is_write


@pytest.mark.parametrize("name, is_write, action", [
    # an insurer's claim is a noun as often as a verb: the tool's other verb decides
    ("PolicyClaimService.findClaim", False, None), ("motor.claim.submit", True, "create"),
    ("rewards.claim", True, "book"),
    # a page or an alert taken on, a rollout undone
    ("opsgenie.alerts.acknowledge", True, "update"), ("incident_ack", True, "update"),
    ("deploy.rollout.undo", True, "update"), ("acks.list", False, None),
    # a transfer standing alone is the verb; beside another verb that verb decides
    ("pots.transfer", True, "transfer"), ("transfer_between_accounts", True, "transfer"),
    ("wise.transfers.get", False, None),
])
def test_claims_pages_and_transfers_in_tool_names(typer, name, is_write, action):
    c = typer.classify(name)
    assert (c.is_write, c.action) == (is_write, action), c


@pytest.mark.parametrize("name, is_write", [
    # a verb named by its -ing form, where nothing else decides
    ("dentist_booking", True), ("parcel_tracking", True),
    ("booking_status", False), ("get_bookings", False), ("pricing", False), ("listing.search", False),
])
def test_a_verb_named_by_its_ing_form(typer, name, is_write):
    assert typer.classify(name).is_write is is_write


@pytest.mark.parametrize("name, action", [
    # a POST to an action's own path does that action; a path of things only makes one
    ("POST /ops/v1/services/pay-gw/restart", "update"), ("POST /cache/flush", "delete"),
    ("POST /v2/orders/7781/cancel", "delete"), ("POST /v1/reminders", "create"), ("POST /pay/v1/payouts", "transfer"), ("POST /v1/notes", "create"),
    ("POST /api/bookings/bk_1/promo", "create"), ("POST /v1/transfers", "transfer"),
    # a policy endorsed changes it; a cache flushed is emptied; running a machine launches it
    ("policy.endorse", "update"), ("redis.flush", "delete"), ("ecs.RunInstances", "create"),
    ("ec2.run_instances", "create"), ("docker.run_container", "create"),
])
def test_path_verbs_endorse_flush_and_machines_run(typer, name, action):
    c = typer.classify(name)
    assert c.is_write and c.action == action, c


@pytest.mark.parametrize("name", ["run_query", "describe_instances", "POST /v1/search"])
def test_run_beside_no_machine_and_a_post_to_a_read_path_do_not_launch(typer, name):
    c = typer.classify(name)
    assert c.action != "create" or name.startswith("POST"), c
    if not name.startswith("POST"):
        assert not c.is_write, c


# set up as one word makes the thing; read first it reads
@pytest.mark.parametrize("name, is_write, action", [
    ("utilities.direct_debit.setup", True, "create"), ("setup_autopay", True, "create"),
    ("get_setup_status", False, None),
])
def test_setup_as_one_word(typer, name, is_write, action):
    assert (typer.classify(name).is_write, typer.classify(name).action) == (is_write, action)


@pytest.mark.parametrize("name", ["legal.doc.notarize", "certificates.certify", "docs/apostille"])
def test_a_document_certified_is_made(typer, name):
    assert typer.classify(name).is_write and typer.classify(name).action == "create"


# the path's verb names what an annotated write does too (POST /v1/invoices/inv_3381/void with
# readOnlyHint=false voids); a path of things only keeps the method's class
@pytest.mark.parametrize("name, action", [("POST /v1/invoices/inv_3381/void", "delete"), ("POST /orders/7/cancel", "delete"),
                                          ("POST /v1/messages/m_2/resend", "send"), ("POST /v1/reminders", "create")])
def test_an_annotated_post_to_an_actions_path_does_that_action(typer, name, action):
    assert typer.classify(name, read_only=False, destructive=False).action == action
