"""How often the short-notice rule (``classify.notice_subjects``) would call a real spin
of one notice "two subjects' items": the rule's cost in spun recall, measured on spins the
detector was not written beside.

Usage::

    UNSPIN_SHARED=../shared PYTHONPATH=src:bench .venv/bin/python bench/notice_spins.py \
        --k 300 --seed 24

Draws ``--k`` Reuters-21578 articles (title + body as distributed, as ``unspin scan`` reads
them) short enough for the rule (``ClassifyParams.notice_max_chars``), makes each one's
derivatives by four routes (Apertium round trips through Spanish, Catalan and Esperanto,
title and body each its own text, the body unwrapped first; a dictionary synonym spinner,
``unspin.evaluate.routes.spin_synonyms`` at share 0.5), and reports per route how many
(source, derivative) pairs the rule fires on, with its figures-only setting
(``notice_min_names=None``) and as set. Every pair is one notice written again, so every
firing is a spin the rule would take from ``spun``. Apertium outputs are cached in
``UNSPIN_MT_CACHE`` (default: the system temp dir).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import re
import sys
import tempfile
from pathlib import Path

from common import SHARED
from eval_duplicates import load

from unspin.classify import ClassifyParams, notice_subjects
from unspin.evaluate.mt import ApertiumTranslator, MTCache, apertium_has
from unspin.evaluate.routes import ROUTES, Thesaurus, spin_synonyms
from unspin.fingerprint import prepare
from unspin.model import Article

MT_CACHE = Path(os.environ.get("UNSPIN_MT_CACHE", Path(tempfile.gettempdir()) / "unspin-mt.jsonl"))


def _parts(a: Article) -> tuple[str, str]:
    title, _, body = a.text.partition("\n\n")
    return title, " ".join(body.split())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, default=300, help="notices drawn")
    ap.add_argument("--seed", type=int, default=24)
    args = ap.parse_args()
    if not (SHARED / "data" / "reuters21578").is_dir():
        print(f"skipped: {SHARED}/data/reuters21578 not found (set UNSPIN_SHARED)")
        return 0
    base = ClassifyParams()
    short = [a for a in load("reuters", None) if len(a.text) <= base.notice_max_chars]
    picked = random.Random(args.seed).sample(short, min(args.k, len(short)))
    parts = [_parts(a) for a in picked]
    made: dict[str, list[str]] = {}
    for kind in ("mt_spa", "mt_cat", "mt_epo"):
        r = ROUTES[kind]
        if not apertium_has(r.pair or "", r.back or ""):
            print(f"{kind}: skipped ({r.package} not installed)")
            continue
        mt = MTCache(ApertiumTranslator(r.pair or "", back=r.back), MT_CACHE)
        flat = mt.roundtrip([x for t, b in parts for x in (t, b)])
        made[kind] = [f"{flat[2 * i]}\n\n{flat[2 * i + 1]}" for i in range(len(parts))]
    th = Thesaurus()
    rng = random.Random(args.seed)
    made["synonym"] = [f"{t}\n\n{spin_synonyms(b, th, rng, 0.5)[0]}" for t, b in parts]
    th.close()
    settings = {
        "figures only (notice_min_names=None)": dataclasses.replace(base, notice_min_names=None),
        f"as set (notice_min_names={base.notice_min_names})": base,
    }
    print(
        f"{len(picked)} Reuters notices of at most {base.notice_max_chars} characters "
        f"(of {len(short)}), seed {args.seed}\n"
    )
    print("| route | pairs | " + " | ".join(f"rule fires, {s}" for s in settings) + " |")
    print("|---|---|" + "---|" * len(settings))
    examples: list[str] = []
    src = [prepare(a) for a in picked]
    for kind, texts in made.items():
        der = [prepare(Article(id=f"{kind}-{a.id}", text=t)) for a, t in zip(picked, texts)]
        fired = {s: 0 for s in settings}
        for d0, d1 in zip(src, der):
            for s, p in settings.items():
                why = notice_subjects(d0, d1, p)
                if why:
                    fired[s] += 1
                    if p is base:
                        head = re.sub(r"\s+", " ", d1.article.text)[:90]
                        examples.append(f"- {kind} {d0.id}: {why} [{head}]")
        print(f"| {kind} | {len(src)} | " + " | ".join(f"{n}" for n in fired.values()) + " |")
    if examples:
        print("\nFirings as set:")
        print("\n".join(examples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
