"""Machine translation for the labelled derivatives: Apertium, one way or there and back,
with an on-disk cache.

Shared by :mod:`unspin.evaluate.derivatives` and :mod:`unspin.evaluate.routes`; it reads
no part of the detector (this module imports nothing from unspin).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

#: called as progress(stage, done, total)
Progress = Callable[[str, int, int], None]


class Translator(Protocol):
    """Round-trips texts through another language and back (one output per input)."""

    def roundtrip(self, texts: list[str]) -> list[str]: ...


class TranslatorError(RuntimeError):
    """The machine translator is missing or failed."""


SEPARATOR = "⁂"  # a line of its own between texts; Apertium passes it through
_SEP_SPLIT = re.compile(r"\n[ \t]*⁂[ \t]*\n")


def _tidy(text: str) -> str:
    """One line, single spaces, first letter upper case (MT lower-cases after markers)."""
    text = " ".join(text.split())
    return text[:1].upper() + text[1:]


class ApertiumTranslator:
    """Apertium through ``pair`` (e.g. ``eng-spa``) and back (``back``, by default the pair
    reversed): one process per direction per batch.

    Texts are joined with a separator line and split back; if the count does not come
    back (the separator got lost), the batch is halved until it does. ``package`` is the
    Debian package that holds the pair (named in the error when it is missing).
    """

    def __init__(
        self,
        pair: str = "eng-spa",
        batch_size: int = 2000,
        back: str | None = None,
        package: str | None = None,
    ) -> None:
        src, tgt = pair.split("-", 1)
        self.pair, self.back, self.batch_size = pair, back or f"{tgt}-{src}", batch_size
        self.package = package or f"apertium-{pair}"
        self.name = f"apertium:{pair}"

    def _install_hint(self) -> str:
        return f"install it with: sudo apt-get install apertium {self.package}"

    def _run(self, mode: str, text: str) -> str:
        try:
            p = subprocess.run(
                ["apertium", "-u", mode], input=text, capture_output=True, text=True, check=False
            )
        except OSError as e:
            raise TranslatorError(f"cannot run apertium ({e}); {self._install_hint()}") from e
        if p.returncode != 0:
            raise TranslatorError(
                f"`apertium -u {mode}` failed: {p.stderr.strip()[:300]}; "
                f"is the package {self.package} installed? {self._install_hint()}"
            )
        return p.stdout

    def _batch(self, texts: list[str], modes: tuple[str, ...]) -> list[str]:
        out = f"\n{SEPARATOR}\n".join(texts) + "\n"
        for mode in modes:
            out = self._run(mode, out)
        parts = _SEP_SPLIT.split(out) if len(texts) > 1 else [out]
        if len(parts) == len(texts):
            return [_tidy(p) for p in parts]
        half = len(texts) // 2
        return self._batch(texts[:half], modes) + self._batch(texts[half:], modes)

    def _through(self, texts: list[str], modes: tuple[str, ...]) -> list[str]:
        if shutil.which("apertium") is None:
            raise TranslatorError(f"apertium is not on PATH; {self._install_hint()}")
        clean = [" ".join(t.replace(SEPARATOR, "*").split()) for t in texts]
        out = [""] * len(texts)
        todo = [i for i, t in enumerate(clean) if t]
        for b in range(0, len(todo), self.batch_size):
            idx = todo[b : b + self.batch_size]
            for i, o in zip(idx, self._batch([clean[i] for i in idx], modes), strict=True):
                out[i] = o
        return out

    def roundtrip(self, texts: list[str]) -> list[str]:
        """Each text into the other language and back."""
        return self._through(texts, (self.pair, self.back))

    def translate(self, texts: list[str]) -> list[str]:
        """Each text into the other language only (a one-way translation)."""
        return self._through(texts, (self.pair,))


def apertium_has(*modes: str) -> bool:
    """Whether apertium is installed with every one of ``modes`` (e.g. ``eng-cat``)."""
    if shutil.which("apertium") is None:
        return False
    try:
        p = subprocess.run(["apertium", "-l"], capture_output=True, text=True, check=False)
    except OSError:
        return False
    have = set(p.stdout.split())
    return all(m in have for m in modes)


class MTCache:
    """Translations on disk (JSON Lines keyed by sha1 of translator name + input).

    ``oneway``: call the translator's ``translate`` (one direction) instead of
    ``roundtrip``; the key then names the direction too, so one cache file can hold both.
    """

    def __init__(
        self, translator: Translator, path: Path, chunk: int = 1000, oneway: bool = False
    ) -> None:
        self.translator, self.path, self.chunk, self.oneway = translator, path, chunk, oneway
        name = getattr(translator, "name", type(translator).__name__)
        self.name = f"{name}:oneway" if oneway else name
        self.memo: dict[str, str] = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    rec = json.loads(line)
                    self.memo[rec["key"]] = rec["out"]
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut short by an interrupted run

    def key(self, text: str) -> str:
        return hashlib.sha1(f"{self.name}\n{text}".encode()).hexdigest()

    def _call(self, batch: list[str]) -> list[str]:
        if self.oneway:
            return self.translator.translate(batch)  # type: ignore[attr-defined]
        return self.translator.roundtrip(batch)

    def roundtrip(self, texts: list[str], progress: Progress | None = None) -> list[str]:
        """The translator's output for each text (one way or round trip, see ``oneway``)."""
        missing = list(dict.fromkeys(t for t in texts if self.key(t) not in self.memo))
        for b in range(0, len(missing), self.chunk):
            if progress:
                progress("translate", b, len(missing))
            batch = missing[b : b + self.chunk]
            outs = self._call(batch)
            if len(outs) != len(batch):
                raise TranslatorError(f"{self.name}: {len(outs)} outputs for {len(batch)} inputs")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                for t, o in zip(batch, outs):
                    self.memo[self.key(t)] = o
                    fh.write(json.dumps({"key": self.key(t), "out": o}, ensure_ascii=False) + "\n")
        if progress and missing:
            progress("translate", len(missing), len(missing))
        return [self.memo[self.key(t)] for t in texts]
