"""Bounded reading: a file -> its bytes (capped), or a data file -> its hashes and table, streamed.

Every read the gate makes goes through here, so nothing a file holds can make it read without
bound: each file has a size cap, the whole check has a total one (the policy's max_input_bytes), a
table keeps at most MAX_CELLS cells, and a data file is hashed and parsed as a stream (a chunk at a
time: 64 KiB), never held twice over in memory. A table no claim reads is parsed and counted, its rows not kept
(keep=False): its memory is the stream's, whatever its rows.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import itertools
import operator
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..lang.rows import Table

CHUNK = 1 << 16  # 64 KiB: a chunk's lines are held at once (a megabyte's were ~13 MB of strings)
NEWLINE = b"\n"
MAX_CELLS = 20_000_000  # cells one table keeps (a run's table is a few thousand here)


class Unreadable(Exception):
    """A file the gate refuses to read: not a regular file, or over its size cap."""


@dataclass
class Budget:
    """The bytes one check may still read, all files together (the policy's max_input_bytes)."""

    left: int

    def charge(self, size: int) -> None:
        if size > self.left:
            raise Unreadable(f"would pass the gate's total input cap (max_input_bytes); {self.left:,} bytes were left")
        self.left -= size


UNBOUNDED = Budget(1 << 62)


def regular_size(path: Path, limit: int) -> int:
    """A regular file's size (links followed), refusing FIFOs, devices, folders and files over limit."""
    try:
        info = os.stat(path)
    except OSError as error:
        raise Unreadable(f"cannot be read ({error.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise Unreadable("is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise Unreadable("is not a regular file (a FIFO, device or socket, or a link to one)")
    if info.st_size > limit:
        raise Unreadable(f"is {info.st_size:,} bytes; the limit is {limit:,}")
    return info.st_size


def read_capped(path: Path, limit: int, budget: Budget = UNBOUNDED) -> bytes:
    """A regular file's bytes (links followed), refusing FIFOs, devices, folders and files over limit."""
    budget.charge(regular_size(path, limit))
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise Unreadable(f"is over the limit of {limit:,} bytes")
    return data


MAX_SOURCE_BYTES = 16 << 20  # as the gate's cap on a code file


def repository_texts(root: Path, paths: Iterable[str]) -> dict[str, str]:
    """The UTF-8 text of each repository path that may be published: a path outside the repository,
    behind a link, over the cap or not text is left out (the gate refuses a run citing such a file)."""
    found = {}
    for path in sorted(set(paths)):
        file = root / path
        if ".." in Path(path).parts or Path(path).is_absolute() or not file.is_file() or file.is_symlink():
            continue
        try:
            if file.stat().st_size <= MAX_SOURCE_BYTES:
                found[path] = file.read_bytes()[:MAX_SOURCE_BYTES].decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
    return found


def blob_id(data: bytes) -> str:
    """The id git gives these bytes as a blob (sha1 of 'blob <size>\\0' + data)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True, slots=True)
class DataFile:
    sha256: str
    blob: str  # git's blob id
    table: Table | None  # for a CSV file


def data_file(path: Path, limit: int, budget: Budget, parse: bool, keep: bool = True) -> DataFile:
    """A run's data file hashed (sha256 and git's blob id) and, for a CSV file, parsed: one pass, streamed
    (keep=False: its rows read, checked and counted, none kept)."""
    size = regular_size(path, limit)
    budget.charge(size)
    sha256 = hashlib.sha256()
    blob = hashlib.sha1(b"blob %d\0" % size, usedforsecurity=False)
    state = _Stream(path, sha256, blob)
    try:
        table = _table(state, keep) if parse else None
    finally:
        state.drain()
    if state.read != size:
        raise Unreadable("changed size while it was read")
    return DataFile(sha256.hexdigest(), blob.hexdigest(), table)


class _Stream:
    """The file's lines as text, hashing every byte read; a decoding problem stops the text, never the hashing."""

    def __init__(self, path: Path, *digests):
        self.handle = open(path, "rb")  # noqa: SIM115 (closed by drain)
        self.digests = digests
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.read = 0
        self.line = 1  # of the next text handed out
        self.problem = ""

    def chunks(self) -> Iterator[bytes]:
        for chunk in iter(lambda: self.handle.read(CHUNK), b""):
            self.read += len(chunk)
            for digest in self.digests:
                digest.update(chunk)
            yield chunk

    def lines(self) -> Iterator[str]:
        pending = ""
        for chunk in self.chunks():
            try:
                text = self.decoder.decode(chunk)
            except UnicodeDecodeError as error:
                bad = self.line + chunk[: error.start].count(NEWLINE)
                self.problem = f"is not UTF-8 (line {bad})"
                return
            if "\0" in text:
                at = pending + text[: text.index("\0")]
                self.problem = f"has a NUL byte (line {self.line + at.count(chr(10))})"
                return
            pending += text
            *complete, pending = pending.split("\n")
            yield from map(operator.add, complete, itertools.repeat("\n"))  # each line with its newline
            self.line += len(complete)
        try:
            pending += self.decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            self.problem = f"is not UTF-8 (line {self.line})"
            return
        if pending:
            yield pending

    def drain(self) -> None:
        for _ in self.chunks():
            pass
        self.handle.close()


def _table(stream: _Stream, keep: bool = True) -> Table:
    """A CSV table from a stream: a header that names each column once, rows as wide as it (keep=False: the
    same reading and the same limits, the rows counted only)."""
    reader = csv.reader(stream.lines())
    try:
        header = tuple(next(reader, ()))
        seen: dict[str, int] = {}
        for position, column in enumerate(header, start=1):
            if column in seen:
                problem = f"column {column!r} appears twice in the header (columns {seen[column]} and {position})"
                return Table(header, (), problem=problem)
            seen[column] = position
        rows = []
        cells = counted = 0
        for number, row in enumerate(reader, start=2):
            if len(row) != len(header):
                return Table(header, (), problem=f"line {number} has {len(row)} cells, the header {len(header)}")
            cells += len(row)
            if cells > MAX_CELLS:
                return Table(header, (), problem=f"has more than {MAX_CELLS:,} cells: split it into smaller tables")
            counted += 1
            if keep:
                rows.append(tuple(row))
    except csv.Error as error:
        return Table((), (), problem=f"is not valid CSV ({error})")
    if stream.problem:
        return Table((), (), problem=stream.problem)
    if not header:
        return Table((), (), problem="is empty")
    return Table(header, tuple(rows)) if keep else Table(header, (), counted=counted)
