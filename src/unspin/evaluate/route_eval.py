"""``unspin eval routes DIR``: one row per derivative route (a ``make-routes`` folder).

Per route: found (any reuse relation between the derivative and its right source), typed
as expected (the route's ``relation``), direction right with undecided counted wrong (the
primary direction figure), and direction right of found; beside MinHash-LSH and TF-IDF
cosine (its threshold tuned on a tune set, labelled "tuned"), each reporting found on the
same articles. Then the precision of the reuse claims that touch a derivative, for
unspin and the baselines. Nothing here passes by construction: no publication times, no
direction given, no gold defined by the detector's own normalisation.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from unspin.evaluate import baselines as bl
from unspin.evaluate import runner
from unspin.evaluate.metrics import Pair, pair_key
from unspin.evaluate.routes import ROUTES
from unspin.evaluate.runner import EvalTable, pair_verdicts
from unspin.model import REUSE_RELATIONS, Article
from unspin.pipeline import Config

BASELINES = runner.BASELINES
#: TF-IDF pairs scored below this are not kept at all (the tuned cut is above it)
TFIDF_FLOOR = 0.05
COLUMNS = (
    "n",
    "found",
    "typed as expected",
    "direction right (undecided counts wrong)",
    "direction right / undecided / wrong",
    "direction right, of found",
)
#: aggregate rows: label, the route methods they sum
GROUPS = (
    ("MT round trips and synonym spinner", ("roundtrip", "synonym")),
    ("one-way translations", ("oneway",)),
    ("model-written rewrites", ("rewrite",)),
)


@dataclass
class RouteScore:
    """Counts for one route (or a group of routes)."""

    n: int = 0
    found: int = 0
    typed: int = 0
    right: int = 0
    undecided: int = 0
    wrong: int = 0
    baseline_found: dict[str, int] = field(default_factory=dict)
    predicted: Counter = field(default_factory=Counter)

    def add(self, other: RouteScore) -> None:
        for k in ("n", "found", "typed", "right", "undecided", "wrong"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        for k, v in other.baseline_found.items():
            self.baseline_found[k] = self.baseline_found.get(k, 0) + v
        self.predicted.update(other.predicted)


def score_routes(
    labels: Sequence[Mapping[str, Any]],
    relations: Mapping[Pair, tuple[str, str | None]],
    baselines: Mapping[str, set[Pair]] | None = None,
) -> dict[str, RouteScore]:
    """Per ``kind``: counts over its labelled pairs.

    ``relations``: pair (either order) -> (predicted relation, predicted source or None);
    only reuse relations count as found, and a direction is read only from those.
    Direction: right, wrong, or undecided (a missed pair is undecided).
    ``baselines``: name -> the pairs it proposes (found = the labelled pair among them).
    """
    rel = {pair_key(*p): v for p, v in relations.items()}
    base = {k: {pair_key(*p) for p in v} for k, v in (baselines or {}).items()}
    out: dict[str, RouteScore] = {}
    for lab in labels:
        s = out.setdefault(lab["kind"], RouteScore(baseline_found=dict.fromkeys(base, 0)))
        p = pair_key(lab["source"], lab["derivative"])
        got, src = rel.get(p, (None, None))
        s.n += 1
        if got in REUSE_RELATIONS:
            s.found += 1
            s.typed += got == lab["relation"]
            s.predicted[got] += 1
        else:
            s.predicted[got or "none"] += 1
            src = None
        if src is None:
            s.undecided += 1
        elif src == lab["source"]:
            s.right += 1
        else:
            s.wrong += 1
        for k, pairs in base.items():
            s.baseline_found[k] += p in pairs
    return out


def claim_precision(
    predicted: Iterable[Pair], gold: set[Pair], derivatives: set[str], siblings: set[Pair]
) -> tuple[int, int]:
    """``(right, claims)`` over the predicted pairs with a derivative in them, pairs of two
    derivatives of one source left out; right = a labelled pair."""
    claims = {pair_key(*p) for p in predicted} - siblings
    claims = {p for p in claims if set(p) & derivatives}
    return len(claims & gold), len(claims)


def _cell(k: int, n: int) -> str:
    return f"{k / n:.3f} ({k})" if n else "–"


def _row(s: RouteScore, systems: Sequence[str]) -> dict[str, Any]:
    row: dict[str, Any] = {
        "n": s.n,
        "found": _cell(s.found, s.n),
        "typed as expected": _cell(s.typed, s.n),
        "direction right (undecided counts wrong)": _cell(s.right, s.n),
        "direction right / undecided / wrong": f"{s.right} / {s.undecided} / {s.wrong}",
        "direction right, of found": _cell(s.right, s.found),
    }
    for name in systems:
        row[_label(name)] = _cell(s.baseline_found.get(name, 0), s.n)
    return row


def _label(system: str) -> str:
    return {"minhash": "MinHash-LSH found", "tfidf": "TF-IDF (tuned) found"}[system]


@dataclass
class RouteReport:
    """The per-route table and the precision table; renders like an :class:`EvalTable`."""

    tables: list[EvalTable]
    seconds: float = 0.0

    def to_markdown(self, command: str | None = None) -> str:
        parts = [t.to_markdown(command if i == 0 else None) for i, t in enumerate(self.tables)]
        return "\n".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"tables": [t.to_json() for t in self.tables], "seconds": self.seconds}


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found (is {path.parent} a make-routes folder?)")
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def read_routes(folder: Path) -> tuple[list[Article], list[dict[str, Any]]]:
    """A routes folder's articles (id, text, title: each text's language is read, as a
    user's would be) and its labels, as :func:`eval_routes` scores them."""
    arts = [
        Article(id=r["id"], text=r["text"], title=r.get("title"))
        for r in _jsonl(folder / "articles.jsonl")
    ]
    return arts, _jsonl(folder / "labels.jsonl")


def _siblings(labels: Sequence[Mapping[str, Any]]) -> set[Pair]:
    by_source: dict[str, list[str]] = {}
    for lab in labels:
        by_source.setdefault(lab["source"], []).append(lab["derivative"])
    return {pair_key(x, y) for ds in by_source.values() for x in ds for y in ds if x < y}


def tuned_tfidf_cut(folder: Path) -> tuple[float, int]:
    """The TF-IDF cosine cut that maximises F1 on a labelled folder: over the pairs with a
    derivative (sibling derivatives left out), a labelled pair is positive. Returns the
    cut and the number of labelled pairs it was tuned on."""
    arts, labels = read_routes(folder)
    if not labels:
        raise ValueError(f"{folder}: no labelled pairs to tune the TF-IDF threshold on")
    gold = {pair_key(lab["source"], lab["derivative"]) for lab in labels}
    derivs = {lab["derivative"] for lab in labels}
    sib = _siblings(labels)
    scores = bl.tfidf_pairs(arts, min_score=TFIDF_FLOOR)
    pairs = [(p, s) for p, s in scores.items() if set(p) & derivs and p not in sib]
    return bl.tune_threshold([s for _, s in pairs], [p in gold for p, _ in pairs]), len(gold)


def eval_routes(
    folder: Path,
    tune: Path | None = None,
    systems: Sequence[str] = BASELINES,
    config: Config | None = None,
    pairs_out: Path | None = None,
) -> RouteReport:
    """Evaluate unspin (and the baselines) on a ``make-routes`` folder, see the module doc.

    ``tune``: the folder TF-IDF's threshold is tuned on (default: ``folder`` itself, which
    the table then says). ``pairs_out``: one JSON line per labelled pair and per unlabelled
    reuse claim with a derivative, with the verdict (as ``eval derivatives --out``)."""
    t0 = time.time()
    folder = Path(folder)
    bad = set(systems) - set(BASELINES)
    if bad:
        raise ValueError(f"unknown baselines {sorted(bad)}; choose from {BASELINES}")
    articles, labels = read_routes(folder)
    if not labels:
        raise ValueError(f"{folder}/labels.jsonl: no labelled derivatives")
    gold = {pair_key(lab["source"], lab["derivative"]): lab for lab in labels}
    derivs = {lab["derivative"] for lab in labels}
    sib = _siblings(labels)

    result = runner._run(articles, config)
    rels = {pair_key(r.a, r.b): r for r in result.relations}
    pred = {p: r.relation for p, r in rels.items() if r.relation in REUSE_RELATIONS}
    found_by: dict[str, set[Pair]] = {}
    cut = n_tuned = None
    if "minhash" in systems:
        found_by["minhash"] = set(bl.minhash_pairs(articles))
    tfidf: dict[Pair, float] = {}
    if "tfidf" in systems:
        cut, n_tuned = tuned_tfidf_cut(Path(tune) if tune else folder)
        tfidf = bl.tfidf_pairs(articles, min_score=min(cut, TFIDF_FLOOR))
        found_by["tfidf"] = {p for p, s in tfidf.items() if s >= cut}

    scores = score_routes(labels, {p: (r.relation, r.source) for p, r in rels.items()}, found_by)
    cols = [*COLUMNS, *(_label(s) for s in systems)]
    table = EvalTable("derivative routes", [str(folder)], cols)
    order = [k for k in ROUTES if k in scores] + sorted(set(scores) - set(ROUTES))
    for kind in order:
        exp = ROUTES[kind].relation if kind in ROUTES else "?"
        table.add(f"{kind} (expected `{exp}`)", **_row(scores[kind], systems))
    for name, methods in GROUPS:
        kinds = [k for k in order if k in ROUTES and ROUTES[k].method in methods]
        if len(kinds) > 1:
            agg = RouteScore(baseline_found=dict.fromkeys(found_by, 0))
            for k in kinds:
                agg.add(scores[k])
            table.add(f"**{name}**", **_row(agg, systems))
    credited = [lab for lab in labels if "credit" in (lab.get("notes") or {})]
    if credited:
        sub = score_routes(credited, {p: (r.relation, r.source) for p, r in rels.items()}, found_by)
        agg = RouteScore(baseline_found=dict.fromkeys(found_by, 0))
        for s in sub.values():
            agg.add(s)
        table.add("of which given an invented credit line", **_row(agg, systems))
    for kind in order:
        dist = ", ".join(f"{k} {v}" for k, v in scores[kind].predicted.most_common())
        table.notes.append(f"{kind}: predicted {dist}")
    table.notes.append(
        "found: any reuse relation (duplicate, copy, spun, translation, partial) between the "
        "derivative and its source; a same_story or related relation counts as not found. "
        "Direction: the source unspin names for a found pair; a missed pair is undecided. "
        "No publication times are given."
    )
    if cut is not None:
        same = tune is None or Path(tune).resolve() == folder.resolve()
        where = (
            f"tuned on this same set ({n_tuned} labelled pairs): not held out"
            if same
            else f"tuned on {tune} ({n_tuned} labelled pairs), not on this set"
        )
        table.notes.append(
            f"TF-IDF cosine cut {cut:.3f}, {where}; the cut with the best F1 over the pairs "
            "with a derivative"
        )
    if "minhash" in systems:
        table.notes.append("MinHash-LSH: datasketch, word 5-grams, 128 permutations, J >= 0.5")

    # precision of the reuse claims touching derivatives
    texts = {a.id: a.text for a in articles}
    origin = {lab["derivative"]: lab["source"] for lab in labels}
    gold_set = set(gold)
    prec = EvalTable("reuse claims with a derivative", [str(folder)], ["unspin", *systems])
    claims = {"unspin": set(pred), **found_by}
    rows: dict[str, dict[str, Any]] = {"n": {}, "p": {}, "pn": {}, "sib": {}}
    inherited_unspin: set[Pair] = set()
    for name, ps in claims.items():
        right, n = claim_precision(ps, gold_set, derivs, sib)
        extra = {p for p in ps if set(p) & derivs and p not in sib and p not in gold_set}
        natural = {p for p in extra if runner._share_sentence(texts, p, origin)}
        if name == "unspin":
            inherited_unspin = natural
        rows["n"][name] = n
        rows["p"][name] = f"{right / n:.3f} ({right} of {n})" if n else "–"
        left = n - len(natural)
        rows["pn"][name] = f"{right / left:.3f} ({len(natural)} left out)" if left else "–"
        rows["sib"][name] = sum(1 for p in ps if pair_key(*p) in sib)
    prec.add("claims (pairs with a derivative, reuse of any type)", **rows["n"])
    prec.add("precision: the claim is a labelled pair", **rows["p"])
    prec.add("precision, unlabelled natural reuse left out", **rows["pn"])
    prec.add("claims between two derivatives of one source (not counted)", **rows["sib"])
    prec.notes.append(
        "natural reuse left out: unlabelled claims whose texts (or the derivative's source "
        "and the other text) share a sentence of 8+ words (80% of its words), as in "
        "`eval derivatives`: reuse the corpus already had"
    )
    n_orig = len(articles) - len(derivs)
    table.notes.append(f"{len(articles)} articles ({n_orig} originals, {len(derivs)} derivatives)")

    if pairs_out is not None:
        universe = {p: r for p, r in pred.items() if p not in sib}
        out_rows = pair_verdicts(gold, universe, rels, derivs, inherited_unspin)
        for row in out_rows:
            p = pair_key(row["a"], row["b"])
            if "minhash" in found_by:
                row["minhash"] = p in found_by["minhash"]
            if "tfidf" in found_by:
                row["tfidf_score"] = round(tfidf.get(p, 0.0), 4)
                row["tfidf"] = p in found_by["tfidf"]
            if p in gold:
                row["split"] = gold[p].get("split")
                row["credit_line"] = "credit" in (gold[p].get("notes") or {})
            if p in rels:  # what each named evidence contributed (for bench/ablation.py)
                row["relation_a"] = rels[p].a
                row["evidence"] = [e.to_record() for e in rels[p].evidence]
        pairs_out.parent.mkdir(parents=True, exist_ok=True)
        with open(pairs_out, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in out_rows)
        prec.notes.append(f"per-pair verdicts: {pairs_out}")
    seconds = time.time() - t0
    table.seconds = prec.seconds = seconds
    return RouteReport([table, prec], seconds)
