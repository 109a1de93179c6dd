"""Worker processes (``arena.parallel``) answer tasks in order, whatever their size."""

from __future__ import annotations

from arena.parallel import Workers

SIZE = 1 << 20
"""Bytes of a task and of its answer: more than a pipe holds (64 KiB on Linux)."""


class Echo:
    """A handler whose answer is as large as its task."""

    def __call__(self, task: bytes) -> bytes:
        return task[::-1]

    def close(self) -> None:
        """Nothing to give back."""


def test_large_tasks_given_ahead_and_large_answers_do_not_wait_for_each_other() -> None:
    """The parent gives a worker its next task while the worker sends its answer to the one
    before: both larger than a pipe holds, each once waited for the other to be read."""
    tasks = [bytes([i]) * (SIZE - i) + b"end" for i in range(6)]
    with Workers(Echo, (), 1) as workers:
        assert list(workers.ordered(tasks)) == [task[::-1] for task in tasks]
