"""Mail: reminders, escalations and handoffs asked at an ``email:`` address, sent by SMTP through the outbox.

Each mail links to the item in the web inbox by a signed, expiring link (:mod:`mail.links`), opened by a
route of its own on ``tandem serve`` (:mod:`mail.web`). A mail only tells; deciding needs signing in, and a
reply to a mail decides nothing.
"""
