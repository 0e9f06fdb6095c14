"""The web inbox: each person's pending reviews and handoffs from every channel, answered in a browser.

:func:`mount` serves it at ``/inbox`` inside ``tandem serve``; ``tandem dev`` signs people in with its person
switcher (:func:`switching`). Decisions go through the same use cases as every chat
(:mod:`agent.usecases`); the views are the neutral ones every channel renders (:mod:`agent.review_view`).
"""

from inbox_web.mount import PREFIX, mount
from inbox_web.settings import InboxSettings, switching

__all__ = ["PREFIX", "InboxSettings", "mount", "switching"]
