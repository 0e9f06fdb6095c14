"""The frames of Feishu's long connection, written and read by hand for the local fake.

A frame is a protobuf message (``pbbp2.Frame``: SeqID=1, LogID=2, service=3, method=4,
headers=5 as key=1/value=2 pairs, payload_encoding=6, payload_type=7, payload=8,
LogIDNew=9). Method 0 is a control frame (``type`` ping/pong), 1 a data frame (``type``
event/card, with ``message_id``, ``trace_id``, ``sum`` and ``seq``). The client answers a
data frame by sending it back with the payload ``{"code": 200, "data": base64(json)}``.
This encoding is independent of the SDK's generated one, so the fake checks the client.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CONTROL, DATA = 0, 1


@dataclass
class Frame:
    method: int
    headers: dict[str, str] = field(default_factory=dict)
    payload: bytes = b""
    service: int = 1
    seq_id: int = 0
    log_id: int = 0


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _key(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _bytes(number: int, data: bytes) -> bytes:
    return _key(number, 2) + _varint(len(data)) + data


def encode(frame: Frame) -> bytes:
    out = bytearray()
    for number, value in ((1, frame.seq_id), (2, frame.log_id), (3, frame.service), (4, frame.method)):
        out += _key(number, 0) + _varint(value)
    for k, v in frame.headers.items():
        out += _bytes(5, _bytes(1, k.encode()) + _bytes(2, v.encode()))
    out += _bytes(8, frame.payload)
    return bytes(out)


def _fields(data: bytes) -> list[tuple[int, int | bytes]]:
    found: list[tuple[int, int | bytes]] = []
    i = 0

    def varint() -> int:
        nonlocal i
        shift = value = 0
        while True:
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    while i < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            found.append((number, varint()))
        elif wire == 2:
            size = varint()
            found.append((number, data[i : i + size]))
            i += size
        else:
            raise ValueError(f"unexpected wire type {wire} in a frame")
    return found


def decode(data: bytes) -> Frame:
    frame = Frame(method=-1)
    for number, value in _fields(data):
        if isinstance(value, int):
            if number == 1:
                frame.seq_id = value
            elif number == 2:
                frame.log_id = value
            elif number == 3:
                frame.service = value
            elif number == 4:
                frame.method = value
        elif number == 5:
            pair = {n: v for n, v in _fields(value) if isinstance(v, bytes)}
            frame.headers[pair.get(1, b"").decode()] = pair.get(2, b"").decode()
        elif number == 8:
            frame.payload = value
    return frame
