"""Types of the compiled record path (``_records.pyx``)."""

from collections.abc import Callable, Generator
from typing import Any, Generic, TypeVar

T = TypeVar("T")

class PartitionReader:
    def __init__(
        self,
        tp: Any,
        buffer: bytes,
        aborted_transactions: Any,
        fetch_offset: int,
        key_deserializer: Callable[[Any], Any] | None,
        value_deserializer: Callable[[Any], Any] | None,
        check_crcs: bool,
        read_committed: bool,
    ) -> None: ...
    @property
    def next_fetch_offset(self) -> int: ...
    def __iter__(self) -> PartitionReader: ...
    def __next__(self) -> Any: ...
    def take(self, max_records: int | None) -> tuple[list[Any], bool]: ...

class Ready(Generic[T]):
    def __init__(self, value: T) -> None: ...
    def __await__(self) -> Generator[Any, None, T]: ...
    def __iter__(self) -> Ready[T]: ...
    def __next__(self) -> Any: ...
