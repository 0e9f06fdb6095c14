"""Policy config: TOML + env overrides, validated with errors that name the key."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent.config import PolicyConfig, load_config, parse_duration
from agent.errors import ConfigError, PolicyError
from agent.models import Anchor, Policy, Risk, RunState, Step
from agent.policy import SafetyPolicy
from workspace.state import WorkspaceState


@pytest.mark.parametrize(
    ("raw", "seconds"), [(90, 90.0), ("90s", 90.0), ("15m", 900.0), ("2h", 7200.0), ("1d", 86400.0)]
)
def test_parse_duration_units(raw: object, seconds: float) -> None:
    assert parse_duration(raw) == seconds


def test_config_file_is_read_and_env_overrides_it(tmp_path: Path) -> None:
    file = tmp_path / "tandem.toml"
    file.write_text(
        """
        allow_self_approval = true
        escalation_channel = "C0ESC"
        [approvers]
        deploy = ["U0BOB", "S0OPS"]
        [quorum]
        deploy = 2
        [timeouts.before_result]
        after = "4h"
        strategy = "use_default"
        default = "approve"
        [groups]
        S0OPS = ["U0DAVE"]
        """
    )
    env = {"TANDEM_POLICY__APPROVERS__WRITE": "U0ALICE,U0BOB", "TANDEM_POLICY__QUORUM__DEPLOY": '"all"'}
    config = load_config(file, env)
    assert config.approvers == {"deploy": ["U0BOB", "S0OPS"], "write": ["U0ALICE", "U0BOB"]}
    assert config.quorum == {"deploy": "all"}
    assert config.timeouts["before_result"].after == 4 * 3600
    assert config.allow_self_approval and config.escalation_channel == "C0ESC"


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[approvers]\ndeploi = ["U1"]', "approvers.deploi"),
        ('[timeouts.before_result]\nafter = "soon"', "timeouts.before_result.after"),
        ('[timeouts.after_plan]\nafter = "1h"\nstrategy = "use_default"', "needs a 'default'"),
        ("[quorum]\ndeploy = 0", "quorum.deploy"),
        ("colour = 'blue'", "colour"),
        ("[approvers", "not valid TOML"),
        ('[anchors]\nstop = ["after_plan", "before_risky_step"]', "anchors.stop: before_risky_step always stops"),
        ('[anchors]\nstop = ["after_everything"]', 'anchors.stop: "after_everything" is not an anchor that may stop'),
        ('[anchors]\nafter_risky_step = "sometimes"', "anchors.after_risky_step"),
        ("[anchors]\nmerge_gate = 3", "anchors.merge_gate"),
        ("[anchors]\nmerge = true", "anchors.merge: unknown key"),
        ('[anchors]\nread_only = "ask"', "anchors.read_only"),
    ],
)
def test_bad_config_names_the_bad_key(tmp_path: Path, toml: str, message: str) -> None:
    file = tmp_path / "tandem.toml"
    file.write_text(toml)
    with pytest.raises(ConfigError, match=message):
        load_config(file, {})


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[aprovers]\nexec = ["U1"]', "aprovers: unknown key (did you mean approvers?)"),
        ('[anchors]\nstpo = ["after_plan"]', "anchors.stpo: unknown key (did you mean stop?)"),
        ('[timeouts.after_plan]\nafter = "1h"\nstrategi = "cancel"', "strategi: unknown key (did you mean strategy?)"),
        ('[report]\nweekdai = "monday"', "report.weekdai: unknown key (did you mean weekday?)"),
        ('[approvers]\nexce = ["U1"]', "approvers.exce: Input should be .* (did you mean exec?)"),
        ('[timeouts.after_pan]\nafter = "1h"', "timeouts.after_pan: Input should be .* (did you mean after_plan?)"),
        ('confirm_threshold = "wrte"', "confirm_threshold: Input should be .* (did you mean write?)"),
    ],
)
def test_misspelled_policy_key_names_the_key_meant(tmp_path: Path, toml: str, message: str) -> None:
    file = tmp_path / "tandem.toml"
    file.write_text(toml)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")):
        load_config(file, {})


def test_policy_key_unlike_any_gets_no_guess(tmp_path: Path) -> None:
    file = tmp_path / "tandem.toml"
    file.write_text("colour = 'blue'")
    with pytest.raises(ConfigError) as raised:
        load_config(file, {})
    assert str(raised.value).endswith("colour: unknown key")


def test_missing_named_config_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(None, {"TANDEM_CONFIG": str(tmp_path / "nope.toml")})


def test_no_config_file_means_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(None, {})
    assert not config.has_approvers and config.timeouts == {}


@pytest.mark.parametrize(
    "entry",
    [
        "U0BOB",
        "W012AB3CD",
        "S0OPSTEAM",
        "ou_7d8a6e6df7621556ce0d21922b676706",
        "od_4e6a",
        "od-4e6ac4d14bcd5071a37a39de902c7141",
        "oc_a0553eda9014c201",
    ],
)
def test_approver_ids_of_slack_and_feishu_are_accepted(entry: str) -> None:
    config = load_config(None, {"TANDEM_POLICY__APPROVERS__EXEC": entry})
    assert config.approvers == {"exec": [entry]}


@pytest.mark.parametrize("entry", ["bob", "@bob", "u0bob", "Bob Approver", "<@U0BOB>", "#ops", "ou-abc", ""])
def test_approver_that_is_no_id_is_refused_naming_key_and_entry(entry: str) -> None:
    with pytest.raises(
        PolicyError, match=re.escape(f"approvers.deploy: {json.dumps(entry)} is not a user or group id")
    ):
        load_config(None, {"TANDEM_POLICY__APPROVERS__DEPLOY": json.dumps(["U0BOB", entry])})


def test_the_local_workspace_people_are_valid_approvers() -> None:
    ids = [user.id for user in WorkspaceState().users.values() if not user.is_bot]
    config = load_config(None, {"TANDEM_POLICY__APPROVERS__EXEC": json.dumps(ids)})
    assert {"U0ALICE", "U0BOB", "U0CAROL"} <= set(config.approvers["exec"])


def test_anchors_section_shapes_the_policy_every_new_run_gets(tmp_path: Path) -> None:
    file = tmp_path / "tandem.toml"
    file.write_text('[anchors]\nstop = ["after_plan"]\nafter_risky_step = "any_follows"\nmerge_gate = false\n')
    policy = load_config(file, {}).run_policy(step_timeout=5.0)
    assert policy.anchors == {"after_plan"} and policy.after_risky_step == "any_follows"
    assert not policy.merge_gate and policy.step_timeout == 5.0


def test_anchors_default_to_every_stop_with_the_merge_on() -> None:
    policy = PolicyConfig().run_policy()
    assert policy.anchors == {"after_plan", "after_risky_step", "before_result"}
    assert policy.merge_gate and policy.after_risky_step == "risky_follows" and policy.read_only == "done"


def test_anchors_read_only_review_brings_back_the_read_only_reviews(tmp_path: Path) -> None:
    file = tmp_path / "tandem.toml"
    file.write_text('[anchors]\nread_only = "review"\n')
    reads = [Step(number=n, tool="check_service", risk=Risk.READ) for n in (1, 2, 3)]

    def stops(policy: Policy, steps: list[Step]) -> frozenset[Anchor]:
        run = RunState(id="x", task="t", requester="U0ALICE", created_at=0, updated_at=0, plan=steps, policy=policy)
        return SafetyPolicy().anchors(run, steps)

    policy = load_config(file, {}).run_policy()
    assert stops(policy, reads[:2]) == {"before_result"}
    assert stops(policy, reads) == {"after_plan", "before_result"}
    assert stops(PolicyConfig().run_policy(), reads) == frozenset(), "by default a read-only plan stops nowhere"
