import asyncio
import time
from typing import Any, cast

from feishu.api import FeishuApi, FeishuError
from feishu.deps import Directory


class Contacts:
    """The contact API as the directory calls it: bob answers, carol is slow, mallory is unknown."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def user(self, open_id: str) -> dict[str, Any]:
        self.asked.append(open_id)
        if open_id == "ou_carol":
            await asyncio.sleep(5)
        if open_id == "ou_mallory":
            raise FeishuError("no such user", code=41050, status=400)
        return {"open_id": open_id, "name": "Bob", "department_ids": ["od-ops"]}


async def test_directory_names_tells_known_names_in_time_and_leaves_out_slow_or_unknown_people() -> None:
    contacts = Contacts()
    directory = Directory(cast(FeishuApi, contacts))
    started = time.monotonic()
    names = await directory.names(["ou_bob", "ou_carol", "ou_mallory"], within=0.2)
    assert names == {"ou_bob": "Bob"} and time.monotonic() - started < 2
    assert await directory.groups_of("ou_bob") == ("od-ops",)
    assert contacts.asked.count("ou_bob") == 1, "bob's record is read once, for his name and his departments"
