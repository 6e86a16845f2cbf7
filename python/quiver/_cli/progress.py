"""Progress shown on stderr (tqdm) for work that takes more than a second, and only on a terminal."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterable, Iterator, NoReturn, TypeVar

from tqdm import tqdm

T = TypeVar("T")

# Nothing is drawn for work that ends sooner; tqdm's own `delay` does the waiting.
DELAY_S = 1.0


def bar(total: float, desc: str, unit: str = "it") -> "tqdm[NoReturn]":
    """A bar to update by hand; disabled when stderr is not a terminal (logs and pipes stay clean)."""
    return tqdm(total=total, desc=desc, unit=unit, delay=DELAY_S, disable=None, leave=False)


def each(items: Iterable[T], desc: str, total: int) -> Iterator[T]:
    """The items, with a bar counting them."""
    return iter(tqdm(items, desc=desc, total=total, delay=DELAY_S, disable=None, leave=False))


@contextmanager
def waiting(desc: str) -> Iterator[None]:
    """A bar with the elapsed time for one blocking call (loading, compiling) that reports no steps:
    a thread ticks it, since the call itself cannot."""
    with tqdm(desc=desc, bar_format="{desc}: {elapsed}", delay=DELAY_S, disable=None, leave=False) as shown:
        done = threading.Event()

        def tick() -> None:
            while not done.wait(0.2):
                shown.update(0)  # redraws once the delay has passed

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        try:
            yield
        finally:
            done.set()
            ticker.join()
