"""Model-written rewrites of real US coverage (PAC dev), scored once, beside tuned TF-IDF.

The set (issue 10, session 12): 14 PAC dev events drawn by seed (:func:`draw_sources`),
one article of each rewritten in three styles (``same``, ``condensed``, ``framed``) and
stored outside the repository (``/work/rewrites-pac``: ``manifest.json`` with ``items``
of ``file``, ``style``, ``source_id``, ``event``, ``credit``; ``<style>/<file>``, first
line the headline). The pile: every PAC dev article (with its outlet and date) plus the
42 rewrites, each dated its source's date + 1 day, outlet the invented credit's for
``framed`` and none otherwise. Every article gets an opaque id.

Scored per style: found (any reuse relation between the rewrite and its source), typed
``spun``, direction right (the source named; undecided and missed count wrong). The
boundary: reuse claimed between a rewrite and the *other* outlet's article of its event
(independent coverage: ``same_story`` is right), reuse claimed between a rewrite and any
article of another event, and reuse claimed between two original articles (should be 0).
Beside it TF-IDF cosine with its cut tuned on a ``make-routes`` tune folder (never on this
set): found, and the same boundary counts at that cut.

Usage (from the repository, ``UNSPIN_SHARED`` set)::

    PYTHONPATH=src:bench .venv/bin/python bench/eval_pac_rewrites.py \
        --rewrites /work/rewrites-pac --tune-set /work/deriv3/routes-tune \
        --cache /work/rwpac-cache --out /work/rwpac-eval/dated

``--no-dates`` gives no article a publication time (direction then comes from the
text evidence alone, as in ``unspin eval routes``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from unspin.evaluate.corpora import opaque_id
from unspin.evaluate.metrics import Pair, pair_key
from unspin.model import REUSE_RELATIONS, Article

STYLES = ("same", "condensed", "framed")
#: the draw: events whose every article has this many whitespace words ...
MIN_WORDS, MAX_WORDS = 250, 900
#: ... of which this many, by this seed
N_EVENTS, SEED = 14, 12
#: opaque ids: sha1 of this seed and the article's key
ID_SEED = 1212


def shared_pac() -> Path:
    import os

    root = Path(os.environ.get("UNSPIN_SHARED", "../shared"))
    return root / "data" / "pac_dev" / "articles.jsonl"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found (set UNSPIN_SHARED?)")
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _event_number(event: str) -> int:
    return int(event.rsplit("_", 1)[1])


def draw_sources(
    rows: Sequence[Mapping[str, Any]],
    seed: int = SEED,
    n: int = N_EVENTS,
    lo: int = MIN_WORDS,
    hi: int = MAX_WORDS,
) -> tuple[list[str], int]:
    """The sources to rewrite and how many events qualified: events whose every article
    has ``lo``..``hi`` whitespace words, sorted by event number; ``random.Random(seed)``
    samples ``n`` of them, then picks one article of each (articles sorted by id), the
    drawn events taken in event-number order."""
    by: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["event"], []).append(r)
    ok = sorted(
        (e for e, rs in by.items() if all(lo <= len(r["text"].split()) <= hi for r in rs)),
        key=_event_number,
    )
    rng = random.Random(seed)
    drawn = sorted(rng.sample(ok, n), key=_event_number)
    return [rng.choice(sorted(by[e], key=lambda r: r["id"]))["id"] for e in drawn], len(ok)


def next_day(date: str | None) -> str | None:
    """The day after an ISO date (``YYYY-MM-DD``...); None stays None."""
    if not date:
        return None
    return (dt.date.fromisoformat(date[:10]) + dt.timedelta(days=1)).isoformat()


@dataclass
class Pile:
    """The articles as given to the detector, and what the scorer needs to know of them."""

    articles: list[Article]
    #: rewrite id -> its manifest item plus ``source`` (the source's pile id)
    labels: dict[str, dict[str, Any]]
    #: pile id -> event
    event: dict[str, str]
    #: pile id -> original PAC id, or ``<style>/<file>`` for a rewrite
    name: dict[str, str]


def build_pile(rows: Sequence[Mapping[str, Any]], folder: Path, dates: bool = True) -> Pile:
    """PAC rows plus the rewrites listed in ``folder/manifest.json``; see the module doc."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    by_id = {r["id"]: r for r in rows}
    arts: list[Article] = []
    pid: dict[str, str] = {}
    event: dict[str, str] = {}
    name: dict[str, str] = {}
    for r in rows:
        i = opaque_id(ID_SEED, "pac", r["id"])
        pid[r["id"]] = i
        event[i] = r["event"]
        name[i] = r["id"]
        when = r.get("published_at") if dates else None
        arts.append(
            Article(i, r["text"], r.get("title"), outlet=r.get("outlet"), published_at=when)
        )
    labels: dict[str, dict[str, Any]] = {}
    for item in manifest["items"]:
        src = by_id.get(item["source_id"])
        if src is None:
            raise ValueError(f"{folder}/manifest.json: source {item['source_id']!r} not in PAC")
        path = folder / item["style"] / item["file"]
        head, _, body = path.read_text(encoding="utf-8").partition("\n")
        if not body.strip():
            raise ValueError(f"{path}: no text after the headline line")
        i = opaque_id(ID_SEED, "rewrite", item["style"], item["file"])
        outlet = item.get("credit") if item["style"] == "framed" else None
        when = next_day(src.get("published_at")) if dates else None
        arts.append(Article(i, body.strip(), head.strip(), outlet=outlet, published_at=when))
        labels[i] = {**item, "source": pid[item["source_id"]]}
        event[i] = src["event"]
        name[i] = f"{item['style']}/{item['file']}"
    order = random.Random(ID_SEED).sample(range(len(arts)), len(arts))
    return Pile([arts[k] for k in order], labels, event, name)


# ---------------------------------------------------------------- scoring (pure)


@dataclass
class StyleScore:
    """Counts over one style's rewrites."""

    n: int = 0
    found: int = 0
    typed: int = 0
    right: int = 0
    undecided: int = 0
    wrong: int = 0
    #: reuse claimed between the rewrite and another article of its event (not its source)
    other_claims: int = 0
    other_pairs: int = 0
    #: the relation given to those pairs (``none`` when unrelated)
    other_relations: Counter = field(default_factory=Counter)
    #: reuse claimed between the rewrite and an article of another event
    foreign_claims: int = 0
    predicted: Counter = field(default_factory=Counter)


@dataclass
class PacScore:
    styles: dict[str, StyleScore]
    #: reuse claims between two original articles: same event, different events
    orig_same_event: int = 0
    orig_other_event: int = 0
    #: claims between two rewrites of one source (not counted anywhere)
    siblings: int = 0


def score_pile(
    labels: Mapping[str, Mapping[str, Any]],
    event: Mapping[str, str],
    relations: Mapping[Pair, tuple[str, str | None]],
) -> PacScore:
    """Score a run. ``labels``: rewrite id -> ``{style, source}``; ``event``: every
    article's event; ``relations``: pair (either order) -> (relation, named source or
    None). Only reuse relations count as found or as claims; a missed pair is undecided."""
    rel = {pair_key(*p): v for p, v in relations.items()}
    styles = {s: StyleScore() for s in STYLES}
    members: dict[str, list[str]] = {}
    for i, e in event.items():
        members.setdefault(e, []).append(i)
    for rid, lab in labels.items():
        s = styles.setdefault(lab["style"], StyleScore())
        s.n += 1
        got, src = rel.get(pair_key(rid, lab["source"]), (None, None))
        if got in REUSE_RELATIONS:
            s.found += 1
            s.typed += got == "spun"
        else:
            src = None
        s.predicted[got or "none"] += 1
        if src is None:
            s.undecided += 1
        elif src == lab["source"]:
            s.right += 1
        else:
            s.wrong += 1
        for other in members[event[rid]]:
            if other == rid or other == lab["source"] or other in labels:
                continue
            r = rel.get(pair_key(rid, other), (None, None))[0]
            s.other_pairs += 1
            s.other_relations[r or "none"] += 1
            s.other_claims += r in REUSE_RELATIONS
    out = PacScore(styles)
    for (a, b), (r, _) in rel.items():
        if r not in REUSE_RELATIONS:
            continue
        la, lb = labels.get(a), labels.get(b)
        if la is None and lb is None:
            if event[a] == event[b]:
                out.orig_same_event += 1
            else:
                out.orig_other_event += 1
        elif la is not None and lb is not None:
            if la["source"] == lb["source"]:
                out.siblings += 1
            else:
                styles[la["style"]].foreign_claims += 1
                styles[lb["style"]].foreign_claims += 1
        else:
            rid, other = (a, b) if la is not None else (b, a)
            if event[other] != event[rid]:
                styles[labels[rid]["style"]].foreign_claims += 1
    return out


def baseline_relations(
    scores: Mapping[Pair, float], cut: float
) -> dict[Pair, tuple[str, str | None]]:
    """A similarity baseline's claims as relations: a pair at or above ``cut`` is reuse
    of unknown direction (``copy``, source None), so :func:`score_pile` reads it as found
    and as a claim, never as directed."""
    return {p: ("copy", None) for p, s in scores.items() if s >= cut}


# ---------------------------------------------------------------- report


def _cell(k: int, n: int) -> str:
    return f"{k / n:.3f} ({k})" if n else "–"


def table(unspin: PacScore, tfidf: PacScore | None, cut: float | None) -> str:
    head = (
        "| style | n | found | typed `spun` | direction right (undecided wrong) | "
        "right / undecided / wrong | reuse claimed with the other outlet's article | "
        "claims with articles of other events | TF-IDF (tuned) found | TF-IDF claims "
        "with the other outlet |"
    )
    lines = [head, "|" + "---|" * 10]
    tot = StyleScore()
    ttot = StyleScore()
    for st in STYLES:
        s = unspin.styles[st]
        t = tfidf.styles[st] if tfidf else StyleScore()
        for k in ("n", "found", "typed", "right", "undecided", "wrong", "other_claims"):
            setattr(tot, k, getattr(tot, k) + getattr(s, k))
        tot.other_pairs += s.other_pairs
        tot.foreign_claims += s.foreign_claims
        ttot.found += t.found
        ttot.other_claims += t.other_claims
        lines.append(_row(st, s, t if tfidf else None))
    lines.append(_row("**all rewrites**", tot, ttot if tfidf else None))
    out = "\n".join(lines) + "\n\n"
    for st in STYLES:
        s = unspin.styles[st]
        out += (
            f"- {st}: rewrite-source relation {_dist(s.predicted)}; rewrite-other-outlet "
            f"relation {_dist(s.other_relations)}\n"
        )
    out += (
        f"- reuse claims between two original articles: {unspin.orig_same_event} within an "
        f"event, {unspin.orig_other_event} across events"
    )
    if tfidf:
        out += (
            f" (TF-IDF at its cut: {tfidf.orig_same_event} within, {tfidf.orig_other_event} across)"
        )
    out += f"\n- claims between two rewrites of one source (not counted): {unspin.siblings}\n"
    if cut is not None:
        out += f"- TF-IDF cosine cut {cut:.3f}, tuned on the tune folder, not on this set\n"
    return out


def _row(label: str, s: StyleScore, t: StyleScore | None) -> str:
    cells = [
        label,
        str(s.n),
        _cell(s.found, s.n),
        _cell(s.typed, s.n),
        _cell(s.right, s.n),
        f"{s.right} / {s.undecided} / {s.wrong}",
        f"{s.other_claims} of {s.other_pairs}",
        str(s.foreign_claims),
        _cell(t.found, s.n) if t else "–",
        f"{t.other_claims} of {s.other_pairs}" if t else "–",
    ]
    return "| " + " | ".join(cells) + " |"


def _dist(c: Counter) -> str:
    return ", ".join(f"{k} {v}" for k, v in c.most_common()) or "–"


def pair_rows(
    pile: Pile, rels: Mapping[Pair, Any], tfidf: Mapping[Pair, float]
) -> Iterable[dict[str, Any]]:
    """One row per rewrite-source pair, rewrite-other-outlet pair and every reuse claim
    outside those (relation record with its evidence), for reading the failures."""
    seen: set[Pair] = set()
    want: list[tuple[Pair, str]] = []
    for rid, lab in pile.labels.items():
        want.append((pair_key(rid, lab["source"]), "rewrite-source"))
        for o, e in pile.event.items():
            if e == pile.event[rid] and o not in pile.labels and o != lab["source"]:
                want.append((pair_key(rid, o), "rewrite-other-outlet"))
    for p, r in rels.items():
        if r.relation in REUSE_RELATIONS:
            want.append((p, "other-claim"))
    for p, kind in want:
        if p in seen:
            continue
        seen.add(p)
        r = rels.get(p)
        yield {
            "kind": kind,
            "a": p[0],
            "b": p[1],
            "a_name": pile.name[p[0]],
            "b_name": pile.name[p[1]],
            "tfidf": round(tfidf.get(p, 0.0), 4),
            "relation": r.to_record() if r is not None else None,
        }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rewrites", type=Path, default=Path("/work/rewrites-pac"))
    ap.add_argument("--pac", type=Path, default=None, help="PAC dev articles.jsonl")
    ap.add_argument("--tune-set", type=Path, required=True, help="make-routes tune folder")
    ap.add_argument("--cache", type=Path, default=None, help="fingerprint Store folder")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--no-dates", action="store_true", help="give no publication times")
    ap.add_argument(
        "--manifest-sources",
        action="store_true",
        help="take the rewrites' sources as the manifest lists them (a set drawn otherwise, "
        "e.g. session 16's: see its README) instead of checking them against draw_sources()",
    )
    args = ap.parse_args(argv)

    from unspin.evaluate import baselines as bl
    from unspin.evaluate.metrics import expand_duplicates
    from unspin.evaluate.route_eval import TFIDF_FLOOR, tuned_tfidf_cut
    from unspin.pipeline import Config, analyse, fingerprint

    t0 = time.time()
    rows = read_jsonl(args.pac or shared_pac())
    drawn, qualified = draw_sources(rows)
    pile = build_pile(rows, args.rewrites, dates=not args.no_dates)
    listed = sorted({lab["source_id"] for lab in pile.labels.values()})
    if not args.manifest_sources and listed != sorted(drawn):
        raise ValueError(f"{args.rewrites}: the manifest's sources are not the seeded draw")
    cfg = Config()
    store = None
    if args.cache is not None:
        from unspin.store import Store

        store = Store(str(args.cache))
    try:
        docs = fingerprint(pile.articles, cfg, cache=store)
        if store is not None:
            store.commit()
        result = analyse(docs, cfg, cache=store)
    finally:
        if store is not None:
            store.close()
    relations = expand_duplicates(result.relations)
    rels = {pair_key(r.a, r.b): r for r in relations}
    unspin = score_pile(
        pile.labels, pile.event, {p: (r.relation, r.source) for p, r in rels.items()}
    )
    cut, n_tuned = tuned_tfidf_cut(args.tune_set)
    tf = bl.tfidf_pairs(pile.articles, min_score=min(cut, TFIDF_FLOOR))
    tfidf = score_pile(pile.labels, pile.event, baseline_relations(tf, cut))
    seconds = time.time() - t0

    args.out.mkdir(parents=True, exist_ok=True)
    md = (
        f"{len(rows)} PAC dev articles ({qualified} events qualify for the draw) + "
        f"{len(pile.labels)} rewrites; dates: {'none' if args.no_dates else 'source + 1 day'}; "
        f"TF-IDF cut tuned on {args.tune_set} ({n_tuned} labelled pairs)\n\n"
        + table(unspin, tfidf, cut)
        + f"- run time: {seconds:.0f} s\n"
    )
    (args.out / "table.md").write_text(md, encoding="utf-8")
    with open(args.out / "pairs.jsonl", "w", encoding="utf-8") as fh:
        for row in pair_rows(pile, rels, tf):
            fh.write(json.dumps(row) + "\n")
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
