from agent.config import PolicyConfig
from bot.approvers import approvers
from feishu import origin as _feishu  # noqa: F401  (registers Feishu: ``ou_…`` ids are its people)


def test_approvers_of_a_level_named_only_on_feishu_say_nobody_in_slack_can() -> None:
    config = PolicyConfig(approvers={"exec": ["U0BOB", "ou_bob"], "deploy": ["ou_carol"]})
    assert approvers(config) == "exec+ <@U0BOB>; deploy+ nobody in Slack (the policy names approvers on feishu only)"


def test_approvers_without_any_configured_are_none_so_the_card_says_the_requester_decides() -> None:
    assert approvers(PolicyConfig()) is None
