"""What the bot says in Slack when something is off (one place for the wording)."""

from __future__ import annotations

UNKNOWN_REVIEW = (
    "Tandem does not know this button's review: it may come from another workspace or a database that was reset. "
    "Nothing changed. Start a new run with `/tandem <task>`."
)
NOTHING_PENDING = (
    "Nothing in run `{run}` is waiting for a decision right now (it is {status}). "
    "Reply again when Tandem asks, or stop it with `/tandem cancel {run}`."
)
NO_DETAILS = (
    "Tandem cannot show this run's details here: it belongs to another channel, or it no longer exists. "
    "Open it where it runs."
)
RUN_FINISHED = "Run `{run}` is already {status}; nothing changed. Start a new one with `/tandem <task>`."
EMPTY_FEEDBACK = "Say what should change: Tandem uses your words to correct course."
FEEDBACK_TOO_LONG = "Keep it under 3,000 characters ({length} now)."
UNKNOWN_SUBCOMMAND = (
    "`{word}` is not a Tandem command. To start a run, describe the task in a few words, "
    "e.g. `{example} restart payments and check errors after`."
)
UNKNOWN_RUN = (
    "No run `{run}` in this channel (give at least {min} characters of its id). `/tandem list` shows the open ones."
)
CANCELLED = "🛑 Run `{run}` cancelled."
FAILED = "Tandem could not do that: {error}"
STARTING_FAILED = "Tandem could not start the run: {error}"
EMPTY_ANSWER = "Type an answer: the tool is waiting for it."
BAD_ANSWER_BUTTON = "This answer button is malformed; nothing changed. Answer in the run's thread instead."
NO_RULE_FOR_DEPLOY = "`{tool}` deploys: it always asks, and cannot be always-allowed. Nothing changed."
RULE_REVOKED = "Revoked: {what} asks for approval again in this channel."
RULE_NOT_YOURS = "Only {user} (who set it) or an approver can {verb} this rule. Nothing changed."
LESSON_FORGOTTEN = "Forgotten: {line}. The next plans in this channel start without it."
LESSON_NOT_YOURS = (
    "Only {user} (who taught it), an approver, or the requester of a run that used it can make Tandem forget "
    "this lesson. Nothing changed."
)
UNKNOWN_LESSON = "That lesson is already forgotten or does not exist here. `/tandem lessons` lists the current ones."
UNKNOWN_RULE = "That rule is already revoked or does not exist here. `/tandem rules` lists the current ones."
UNREADABLE = (
    "Tandem could not read this {surface} ({problem}); nothing changed. "
    "Try again, and if it keeps failing, tell whoever runs Tandem."
)
BAD_REQUEST = "Tandem could not read this request: {reason}. Nothing changed."
NO_TEAM = "Tandem refused this request: it names no workspace (team id). Nothing changed."
SLACK_NOT_ANSWERING = ":warning: Slack is not answering; try again in a minute. Nothing changed."
INSTALLATION_REFUSED = (
    ":warning: Slack no longer accepts Tandem's token (`{error}`): the app was uninstalled or its token revoked. "
    "Ask a workspace admin to reinstall Tandem. Nothing changed."
)
NOT_STARTED = (
    "⚠️ Your run did not start: Tandem could not post its card in this channel ({error}), so nobody could follow "
    "or approve it. It is cancelled (`{run}`). Start it again with `/tandem {task}` once Slack answers."
)
CARD_NOT_POSTED = (
    "⚠️ Tandem could not post the card of your run `{run}` in this channel ({error}); the run ended ({status}). "
    "`tandem show {run}` has what it did."
)
ALREADY_RECEIVED = "Tandem already received this command; it is not done twice."
ANSWERERS_ELSEWHERE = "people on {where}"
APPROVERS_ELSEWHERE = "nobody in Slack (the policy names approvers on {where} only)"
