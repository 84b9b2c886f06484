"""What a figure function receives: Data, the runs and claims of the gate's Report, recorded as used.

Data hands out runs and claims (never files) and remembers which it handed out (Provenance), so the
caption names them; a run whose files are not what was measured is refused (FigureError).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from ..records import KINDS, Claim, ClaimInterval, LedgerError, Report, Run
from .tables import frame_of


class FigureError(LedgerError):
    """A figure asked for data that does not exist, or returned the wrong thing."""


@dataclass(frozen=True, slots=True)
class Provenance:
    """What a figure read: the runs and claims, in the order it asked for them."""

    runs: tuple[Run, ...] = ()
    claims: tuple[Claim, ...] = ()

    @property
    def testbeds(self) -> list[str]:
        found = [run.testbed for run in self.runs] + [claim.testbed for claim in self.claims]
        return sorted({t for t in found if t})

    @property
    def kinds(self) -> list[str]:
        found = {"measured"} if self.runs else set()
        found |= {claim.kind for claim in self.claims}
        return [kind for kind in KINDS if kind in found]


class Data:
    """The accessor a figure function receives: runs and claims from the Report, recorded as used."""

    def __init__(self, report: Report):
        self._report = report
        self._runs: dict[str, Run] = {}
        self._claims: dict[str, Claim] = {}

    @property
    def used(self) -> Provenance:
        return Provenance(tuple(self._runs.values()), tuple(self._claims.values()))

    def runs(self, probe: str, *, testbed: str | None = None, latest: bool = True, cited: bool = False) -> list[Run]:
        """Usable runs of a probe (oldest first); latest=True keeps the newest per testbed; cited=True only the
        runs some claim's evidence names (so a figure shows what the claims beside it cite, not a newer run
        made for another purpose, such as replicates measured on another CPU)."""
        named = {claim.evidence.run for claim in self._report.claims if claim.evidence is not None} if cited else set()
        found = [
            run
            for run in self._report.runs.values()
            if run.probe_name == probe
            and not run.problem
            and (testbed is None or run.testbed == testbed)
            and (not cited or run.path in named)
        ]
        found.sort(key=lambda run: (run.started.timestamp() if run.started else 0.0, run.path))
        if latest:
            newest = {run.testbed: run for run in found}
            found = [run for run in found if newest[run.testbed] is run]
        for run in found:
            self._refuse_if_not_intact(run)
        if not found:
            where = f" on testbed {testbed!r}" if testbed else ""
            known = sorted({run.probe_name for run in self._report.runs.values()})
            raise FigureError(
                f"no run of probe {probe!r}{where} under measurements/ (probes with runs: {', '.join(known) or 'none'})"
            )
        return found

    def frame(
        self,
        probe: str,
        file: str = "results.csv",
        *,
        testbed: str | None = None,
        run: str | None = None,
        latest: bool = True,
        cited: bool = False,
        replicates_of: str | None = None,
    ) -> pd.DataFrame:
        """Rows of `file` from the probe's runs (or the one run named), with `run` and `testbed` columns;
        cited=True: from the runs claims cite (see runs()); replicates_of=ID: from every run the claim's
        value rests on (cited_set()), each row labelled with its run."""
        if replicates_of is not None:
            selected = self.cited_set(replicates_of)
        elif run is not None:
            chosen = self._report.runs.get(run)
            if chosen is None or chosen.problem:
                raise FigureError(f"run {run!r} does not exist or has no usable manifest")
            self._refuse_if_not_intact(chosen)
            selected = [chosen]
        else:
            selected = self.runs(probe, testbed=testbed, latest=latest, cited=cited)
        frames = []
        for chosen in selected:
            data = chosen.tables.get(file)
            if data is None or data.problem:
                why = data.problem if data else f"has no {file} (it has {', '.join(sorted(chosen.tables)) or 'none'})"
                raise FigureError(f"run {chosen.path}: {file} {why}" if data else f"run {chosen.path} {why}")
            frame = frame_of(data)
            for column, value in (("run", chosen.name), ("testbed", chosen.testbed)):
                if column not in frame.columns:
                    frame[column] = value
            frames.append(frame)
            self._runs.setdefault(chosen.path, chosen)
        return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]

    def _refuse_if_not_intact(self, run: Run) -> None:
        """A figure never draws from a run whose files are not what was measured (the gate's verdict)."""
        state = self._report.run_state(run.path)
        if not state.intact:
            raise FigureError(f"run {run.path} is {state.label}: {'; '.join(state.reasons)}")

    def cited_set(self, claim_id: str) -> list[Run]:
        """The runs a measured claim's value rests on, oldest first: the replicate set its value pools
        (`evidence.replicates`), else its cited run alone. A figure beside the claim shows these (every
        replicate, labelled) or the claim itself (claim_cells()), never one run's value beside a pooled one."""
        claim = self.claim(claim_id)
        verdict = self._report.verdict(claim_id)
        if claim.evidence is None or verdict is None:
            raise FigureError(f"claim {claim_id!r} is not measured: it cites no run")
        replicas = verdict.replicas
        paths = replicas.runs if replicas is not None and replicas.cited else (claim.evidence.run,)
        found = []
        for path in paths:
            run = self._report.runs.get(path)
            if run is None or run.problem:
                raise FigureError(f"run {path!r} does not exist or has no usable manifest")
            self._refuse_if_not_intact(run)
            found.append(run)
        return found

    def claim_cells(self, frame: pd.DataFrame, claim_ids: Iterable[str]) -> pd.DataFrame:
        """The frame with each measured claim in its own cell (the row its evidence selects, of its cited
        run where the frame keeps a `run` column; its column), shown as the claim's badge: its value as the
        gate states it, pooled over its replicate set, so the table and the prose show one number."""
        frame = frame.copy()
        for claim_id in claim_ids:
            claim = self.claim(claim_id)
            evidence = claim.evidence
            if evidence is None or evidence.column not in frame.columns:
                raise FigureError(
                    f"claim {claim_id!r} has no cell in this frame (its column is not one of its columns)"
                )
            rows = pd.Series(True, index=frame.index)
            for column, wanted in evidence.where:
                if column not in frame.columns:
                    raise FigureError(f"claim {claim_id!r} selects its row by {column!r}, which this frame lacks")
                rows &= frame[column].map(lambda cell, wanted=wanted: _same(cell, wanted))
            if "run" in frame.columns:
                rows &= frame["run"] == evidence.run.rsplit("/", 1)[-1]
            if not rows.any():
                raise FigureError(f"claim {claim_id!r}: no row of this frame is its cell")
            frame[evidence.column] = frame[evidence.column].astype(object)
            frame.loc[rows, evidence.column] = [claim] * int(rows.sum())
        return frame

    def claim(self, claim_id: str) -> Claim:
        """One claim (a table cell holding it renders as its badge)."""
        found = self._report.claim(claim_id)
        if found is None:
            raise FigureError(f"no claim {claim_id!r}")
        self._claims.setdefault(found.id, found)
        return found

    def interval(self, claim_id: str) -> ClaimInterval | None:
        """Where the gate puts a claim's value given its noise (its badge shows the same on hover): between
        its replicate runs (`basis == "replicates"`), else its rounds' or its inputs'; None where it has none.
        A figure that decides by it (a cell within, over or borderline) decides as the claim's page reads."""
        self.claim(claim_id)
        verdict = self._report.verdict(claim_id)
        return verdict.interval if verdict is not None else None

    def claims(
        self,
        ids: Iterable[str] | None = None,
        *,
        kind: str | None = None,
        status: str | None = None,
        testbed: str | None = None,
    ) -> pd.DataFrame:
        """Claims as rows: id, statement, value, unit, kind, status, testbed and `claim` (the record)."""
        chosen = (
            [self.claim(i) for i in ids]
            if ids is not None
            else [
                c
                for c in self._report.claims
                if (kind is None or c.kind == kind)
                and (status is None or c.status == status)
                and (testbed is None or c.testbed == testbed)
            ]
        )
        for claim in chosen:
            self._claims.setdefault(claim.id, claim)
        rows = [
            {
                "id": c.id,
                "statement": c.statement,
                "value": c.value,
                "unit": c.unit,
                "kind": c.kind,
                "status": c.status,
                "testbed": c.testbed,
                "claim": c,
            }
            for c in chosen
        ]
        columns = ["id", "statement", "value", "unit", "kind", "status", "testbed", "claim"]
        return pd.DataFrame(rows, columns=columns)


def _same(cell: object, wanted: object) -> bool:
    """Whether a frame's cell is the value a claim's `where` names (numbers as numbers: 1024 and "1024")."""
    if str(cell) == str(wanted):
        return True
    try:
        return float(cell) == float(wanted)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
