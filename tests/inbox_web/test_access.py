"""Who sees and changes what in the inbox: the signed-out, an outsider, a forged request."""

from __future__ import annotations

from pathlib import Path

from tests.inbox_web.helpers import browser, inbox_api, pending_review
from tests.scenario.asking import ASK


async def test_inbox_signed_out_is_sent_to_sign_in_and_back_to_the_item(tmp_path: Path) -> None:
    async with inbox_api(tmp_path) as (env, http):
        async with http.post("/api/v1/handoffs", json=ASK) as created:
            run_id = (await created.json())["id"]
        review = await pending_review(env, run_id)
        async with browser(env) as alice:
            async with alice.http.get(f"/inbox/items/{review}", allow_redirects=False) as reply:
                assert reply.status == 303
                assert reply.headers["Location"] == f"/inbox/signin?next=%2Finbox%2Fitems%2F{review}"
            async with alice.http.get(reply.headers["Location"]) as page:
                assert page.status == 200
            async with alice.post("/inbox/signin/switch", {"person": "U0ALICE", "next": f"/inbox/items/{review}"}) as r:
                assert (await r.json())["go"] == f"/inbox/items/{review}"
            status, html = await alice.page(f"/inbox/items/{review}")
            assert status == 200
            assert "Roll back checkout to v41?" in html


async def test_inbox_outsider_sees_nothing_and_changes_nothing(tmp_path: Path) -> None:
    async with inbox_api(tmp_path) as (env, http):
        async with http.post("/api/v1/handoffs", json=ASK) as created:
            run_id = (await created.json())["id"]
        review = await pending_review(env, run_id)
        async with browser(env) as carol:
            await carol.sign_in("U0CAROL")
            assert await carol.listed() == []
            status, html = await carol.page(f"/inbox/items/{review}")
            assert status == 404
            assert "Roll back" not in html
            status, message = await carol.answer(review, choice="answer", value="roll back")
            assert (status, message) == (
                404,
                "Nothing here for you: this request is unknown, or it is not yours to see.",
            )
        async with http.get(f"/api/v1/handoffs/{run_id}") as read:
            assert (await read.json())["status"] == "pending"


async def test_inbox_answer_without_the_csrf_header_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    async with inbox_api(tmp_path) as (env, http):
        async with http.post("/api/v1/handoffs", json=ASK) as created:
            run_id = (await created.json())["id"]
        review = await pending_review(env, run_id)
        async with browser(env) as alice:
            await alice.sign_in("U0ALICE")
            body = {"choice": "answer", "value": "roll back"}
            async with alice.post(f"/inbox/items/{review}/answer", body, csrf=False) as forged:
                assert forged.status == 403
                assert "CSRF" in await forged.text()
            headers = {"X-CSRFToken": "forged-token"}
            async with alice.http.post(f"/inbox/items/{review}/answer", json=body, headers=headers) as wrong:
                assert wrong.status == 403
        async with http.get(f"/api/v1/handoffs/{run_id}") as read:
            assert (await read.json())["status"] == "pending"


async def test_inbox_switcher_refuses_a_person_the_workspace_does_not_know(tmp_path: Path) -> None:
    async with inbox_api(tmp_path) as (env, _), browser(env) as someone:
        async with someone.http.get("/inbox/signin") as page:
            assert page.status == 200
        async with someone.post("/inbox/signin/switch", {"person": "U0MALLORY"}) as reply:
            assert reply.status == 422
            assert (await reply.json())["message"] == "Nobody called U0MALLORY here."
        status, _ = await someone.page("/inbox/")
        assert status == 303


async def test_inbox_next_never_leaves_the_inbox(tmp_path: Path) -> None:
    async with inbox_api(tmp_path) as (env, _), browser(env) as alice:
        async with alice.http.get("/inbox/signin") as page:
            assert page.status == 200
        for elsewhere in ("https://evil.example/", "//evil.example/inbox/", "/api/v1/handoffs"):
            async with alice.post("/inbox/signin/switch", {"person": "U0ALICE", "next": elsewhere}) as reply:
                assert (await reply.json())["go"] == "/inbox/"
