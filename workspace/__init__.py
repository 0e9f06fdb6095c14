"""A local Slack-compatible workspace for driving the bot from tests and from a browser.

It serves the Web API subset the bot calls, keeps channels, messages, threads
and views in memory, and turns people's actions into signed Slack requests to
the bot's ``/slack/events`` URL. With ``run_workspace(ui=True)`` it also serves
a Slack-like page (:mod:`workspace.web`) where alice, bob and carol do the same
through a browser; ``tandem dev`` runs it next to the real bot. Bot runtime
code never imports this package.
"""

from workspace.errors import ScenarioError, SlackFailure, WorkspaceError
from workspace.models import APP_ID, BOT_ID, BOT_USER_ID, TEAM_ID, ApiCall, Channel, Ephemeral, Message, User, View
from workspace.people import Workspace
from workspace.server import BOT_TOKEN, SIGNING_SECRET, run_workspace, serve
from workspace.state import WorkspaceState
from workspace.transport import Delivery, Forgery

__all__ = [
    "APP_ID",
    "BOT_ID",
    "BOT_TOKEN",
    "BOT_USER_ID",
    "SIGNING_SECRET",
    "TEAM_ID",
    "ApiCall",
    "Channel",
    "Delivery",
    "Ephemeral",
    "Forgery",
    "Message",
    "ScenarioError",
    "SlackFailure",
    "User",
    "View",
    "Workspace",
    "WorkspaceError",
    "WorkspaceState",
    "run_workspace",
    "serve",
]
