"""The one shape of an importer: it claims the files it reads, then reads each source it claimed.

Every format is one `Importer` (its module's `IMPORTER`); `registry.IMPORTERS` lists them in the
order they claim. `runner.discover` walks each PATH once and gives every importer, in that order,
the files below it and what the importers before it claimed: a W&B run folder takes the
TensorBoard and text files in it, an MLflow run folder the TensorBoard logs among its artifacts.
A later importer that meets such a file leaves it and says so, in the claimer's words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .common import Options, Outcome, display_path


@dataclass(frozen=True)
class Walk:
    """One PATH given to the importer: the PATH, the folder its sources are named against (the
    PATH, or a file's folder) and every file below it, in a stable order."""

    path: Path
    base: Path
    files: list[Path]


@dataclass
class Source:
    """One unit of work an importer claimed: a TensorBoard run folder, an MLflow run folder, a
    database, a text log, the run files (sessions) of one W&B run."""

    importer: Importer
    path: Path
    root: Path
    files: list[Path] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return self.importer.kind

    @property
    def file_count(self) -> int:
        return max(1, len(self.files))


@dataclass(frozen=True)
class Claim:
    """A folder an importer takes from the importers after it: below `folder`, the files (of="files")
    or the run folders (of="runs": TensorBoard's folder of event files) of `formats`. `note` is what
    is said of each one taken: `{taken}` is its path as shown, `{owner}` the folder's name."""

    folder: Path
    formats: frozenset[str]
    note: str
    of: str = "files"

    def said_of(self, taken: Path) -> str:
        return self.note.format(taken=display_path(taken), owner=self.folder.name)


class Claimed:
    """What the earlier importers claimed below one PATH, by folder."""

    def __init__(self, claims: list[Claim] | None = None) -> None:
        self.by_folder: dict[Path, list[Claim]] = {}
        self.add(claims or [])

    def add(self, claims: list[Claim]) -> None:
        for claim in claims:
            self.by_folder.setdefault(claim.folder, []).append(claim)

    def owner(self, path: Path, fmt: str, of: str = "files") -> Claim | None:
        """The claim that takes path (a file, or a run folder with of="runs") from format fmt: the
        one of the nearest folder above it; None when no earlier importer took it."""
        for folder in path.parents:
            for claim in self.by_folder.get(folder, ()):
                if claim.of == of and fmt in claim.formats:
                    return claim
        return None


@dataclass
class Claims:
    """What one importer claimed below one PATH: the sources it will read, the folders it takes
    from the importers after it, and its notes on files it left to an earlier importer."""

    sources: list[Source] = field(default_factory=list)
    taken: list[Claim] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Importer:
    """One format's importer.

    name: the --format that selects it (two importers may share one: MLflow's two stores);
    kind: its sources' kind (the dry run's first column, `runlens build`'s words for what it found);
    label: the format as messages name it; package: the importer extra's package it needs to read
    (None: runlens' own dependencies suffice), imported by `read` alone, so claiming never needs it;
    claim(walk, claimed, options, explicit): its sources among walk.files, given what earlier
    importers claimed (`explicit`: the user asked for its format by name);
    read(source, options): the runs, rejects and notes of one source it claimed."""

    name: str
    kind: str
    label: str
    package: str | None
    claim: Callable[[Walk, Claimed, Options, bool], Claims]
    read: Callable[[Source, Options], Outcome]
