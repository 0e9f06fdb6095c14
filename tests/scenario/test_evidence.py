"""The restart gate carries the error logs read before it; Show details opens them whole, only where the run lives."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

from blocks import ids
from tests.scenario.harness import THREE_ANCHORS, button_value, gate_of, policy_file, running, text_of
from workspace.models import View

TASK = "read the payments logs, then restart payments"
# approving the plan leaves the restart to its own gate, where the logs read before it are shown
GATE_APART = THREE_ANCHORS


def modal_text(view: View) -> str:
    return json.dumps(view.blocks, ensure_ascii=False)


async def test_gate_message_shows_the_read_logs_lines_before_approval(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, GATE_APART)) as env:
        _, gate = await gate_of(env, TASK)
        text = text_of(gate)
        assert "Since the last review" in text
        assert "*Step 1* `read_logs` `service=payments`" in text
        assert (
            "ERROR" in text and "more lines · Show details" in text
        )  # a log line, at the gate, before anyone approved the restart
        assert '"service"' not in text


async def test_gate_show_details_opens_the_whole_output_in_a_modal(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, GATE_APART)) as env:
        _, gate = await gate_of(env, TASK)
        asked = json.loads(button_value(gate, ids.EVIDENCE))
        assert asked["steps"] == [1, 2]
        await env.click("bob", gate, ids.EVIDENCE)
        await env.wait(lambda: "Loading" not in modal_text(env.ws.state.open_modals("bob")[-1]))
        shown = modal_text(env.ws.state.open_modals("bob")[-1])
        state, _ = await env.bot.deps.store.load(asked["run"])
        logs = state.step(1).result
        assert isinstance(logs, str) and logs.splitlines()[-1] in shown
        assert "restart_service" in shown and "not run yet" in shown


async def test_show_details_from_another_channel_shows_nothing_of_the_run(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, GATE_APART)) as env:
        _, gate = await gate_of(env, TASK)
        payload = {
            "type": "block_actions",
            "user": {"id": "U0CAROL"},
            "team": {"id": "T0TANDEM"},
            "channel": {"id": "C0GENERAL"},
            "container": {"type": "message", "channel_id": "C0GENERAL", "message_ts": gate.ts},
            "actions": [{"action_id": ids.EVIDENCE, "block_id": "b", "value": button_value(gate, ids.EVIDENCE)}],
            "trigger_id": env.ws.state.issue_trigger("U0CAROL"),
        }
        delivery = await env.ws.send_raw(
            urlencode({"payload": json.dumps(payload)}), content_type="application/x-www-form-urlencoded"
        )
        assert delivery.status == 200
        await env.wait(lambda: "Loading" not in modal_text(env.ws.state.open_modals("carol")[-1]))
        shown = modal_text(env.ws.state.open_modals("carol")[-1])
        assert "cannot show this run's details here" in shown
        assert "Connection pool" not in shown
