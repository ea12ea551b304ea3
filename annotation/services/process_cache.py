"""A few expensive objects kept per process (engines, scorers): built once for a key,
the least recently used dropped past ``keep``, safe across the threads of one process.
Workers share nothing through it; what must be shared lives in the database or the
cache."""

from collections import OrderedDict
from collections.abc import Callable, Hashable
from threading import Lock
from typing import Generic, TypeVar

T = TypeVar("T")


class ProcessCache(Generic[T]):
    def __init__(self, keep: int):
        self.keep = keep
        self._items: OrderedDict[Hashable, T] = OrderedDict()
        self._lock = Lock()

    def get_or_build(self, key: Hashable, build: Callable[[], T]) -> T:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                item = self._items[key] = build()
                while len(self._items) > self.keep:
                    self._items.popitem(last=False)
            self._items.move_to_end(key)
            return item

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
