"""What the bot says in Feishu when something is off (one place for the wording)."""

from __future__ import annotations

UNKNOWN_REVIEW = "Tandem does not know this card's review (another app or a reset database); nothing changed."
NOT_A_TANDEM_BUTTON = "This button is not one of Tandem's; nothing changed."
NOTHING_PENDING = (
    "Nothing in run `{run}` is waiting for a decision right now (it is {status}). "
    "Reply again when Tandem asks, or say `cancel {run}` to the bot."
)
EMPTY_FEEDBACK = "Say what should change: Tandem uses your words to correct course."
EMPTY_ANSWER = "Type an answer first: the tool is waiting for it."
WORKING = "Got it; Tandem is working on it."
APPLIED = "Done; the run's thread shows what follows."
MORE_NEEDED = "Approved; {n} more approval(s) needed before it goes on."
VOTED = {"up": "Thanks: noted 👍 for this result.", "down": "Thanks: noted 👎. Say in the thread what was missing."}
VOTE_UNKNOWN_RUN = "That run is gone; nothing was recorded."
DUPLICATE = "Already handled; nothing changed."
ASKED = "Not sure what you meant: Tandem asked in the thread. Nothing changed yet."
ANSWERED = "Answered in the thread. Nothing changed; the review still waits for a decision."
ALREADY = "Already {verb} by {who}; nothing changed."
FAILED = "Tandem could not do that: {error}"
STARTING_FAILED = "Tandem could not start the run: {error}"
UNKNOWN_RUN = "No run `{run}` in this chat (give at least {min} characters of its id). `list` shows the open ones."
WHICH_RUN = "Say which run: `{word} <run>`."
CANCELLED = "🛑 Run `{run}` cancelled."
HELP = (
    "**Tandem** runs a task step by step and asks before anything risky.\n"
    "• Mention the bot with a task: `@Tandem restart payments and check errors after`\n"
    "• `list` — open runs here · `status <run>` · `cancel <run>`\n"
    "• `rules` — always-allow rules here · `rules widen <id>` (every target) · `rules revoke <id>`\n"
    "• `report [7d|30d|DATE]` — this chat's collaboration report (`报告` in Chinese)\n"
    "• `lessons` — what corrections taught plans here · `lessons forget <id>`\n"
    "• Reply in a run's thread to correct it; approve with the card's buttons."
)
HELP_ZH = (
    "**Tandem** 按步骤执行任务，高风险操作前会先询问。\n"
    "• @机器人 并写下任务：`@Tandem 重启 payments 服务，然后检查错误日志`\n"
    "• `列表` — 本群进行中的运行 · `状态 <运行>` · `取消 <运行>`\n"
    "• `规则` — 本群的始终允许规则 · `rules widen <id>`（所有目标）· `rules revoke <id>`\n"
    "• `报告 [7d|30d|日期]` — 本群的协作报告\n"
    "• `经验` — 修改计划时积累的经验 · `lessons forget <id>`\n"
    "• 在运行的话题中回复即可修改它；用卡片上的按钮批准。"
)
FEISHU_NOT_ANSWERING = "Feishu is not answering; try again in a moment. Nothing changed."
APP_REFUSED = (
    "Feishu does not accept Tandem's app ({error}): ask an admin to check its app id, secret and permissions "
    "(or reinstall it). Nothing changed."
)
REFUSED = "This card is not from Tandem's workspace; nothing changed."
LESSON_FORGOTTEN = "Forgotten: {line}. The next plans here start without it."
NO_LESSONS = "No lessons here yet: each correction of a plan or a step becomes one."
FORGET_WHICH = "Say which lesson: `lessons forget <id>` (`lessons` lists them with their ids)."
LESSONS_FOOTER = "New plans here start from these. A later correction of the same thing replaces one."
NOT_STARTED = (
    "⚠️ Your run did not start: Tandem could not post its card in this chat ({error}), so nobody could follow "
    "or approve it. It is cancelled (`{run}`). Ask again once Feishu answers: {task}"
)
CARD_NOT_POSTED = (
    "⚠️ Tandem could not post the card of your run `{run}` in this chat ({error}); the run ended ({status}). "
    "`tandem show {run}` has what it did."
)
