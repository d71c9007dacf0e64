"""A real HTTP client (the standard library's) for the health endpoint, off the event loop."""

from __future__ import annotations

import asyncio
import http.client
import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def _request(address: tuple[str, int], method: str, path: str) -> Answer:
    connection = http.client.HTTPConnection(*address, timeout=10)
    try:
        connection.request(method, path)
        response = connection.getresponse()
        return Answer(response.status, dict(response.getheaders()), response.read())
    finally:
        connection.close()


async def http_request(address: tuple[str, int], path: str, method: str = "GET") -> Answer:
    return await asyncio.to_thread(_request, address, method, path)
