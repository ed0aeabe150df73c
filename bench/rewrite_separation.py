"""Do the rewrites classify misses differ from independent reports of one event?

For the rows ``bench/fit_caseless.py --rows`` wrote (labelled rewrites of rewrite piles and
independent same-event pairs of hand-translated guards, with each pair's typing features),
this script

* replays classify's whole-text / rewrite-of-one-text reading from the stored features
  (the English whole-text model, the rewrite model at its cut or in its band with the
  body-details share, the carried-pieces gate: :func:`claims`), so each rewrite is
  found or missed and each independent pair claimed or not, as classify would;
* computes candidate features that classify does not read, from the pairs' texts: the
  shorter text's content words (Snowball stems, Zipf under ``--zipf``) found in the
  longer, and their Jaccard; the in-order chain of the shorter text's sentences matched
  at a cosine by the main encoder; with ``--e5`` the same chain and the mean best cosine
  by the second encoder (multilingual-e5-small, slow: about 30 sentences a second);
* prints each feature's AUC of a missed rewrite against an independent pair the reading
  does not claim, and what a logistic model over the rewrite model's features and these
  would take, one pile or guard round out at a time.

Session 53's figures (docs/benchmarks.md) are this script's output on the tune round of
Russian, German, Polish and Dutch rewrites and the guards g2-g4::

    PYTHONPATH=src:bench .venv/bin/python bench/fit_caseless.py --cache C \\
        --piles PILE... --gather ru,de,pl,nl --langs ru,de,pl,nl --rows ROWS.jsonl
    PYTHONPATH=src:bench .venv/bin/python bench/rewrite_separation.py --cache C \\
        --rows ROWS.jsonl --piles PILE... --guard SETS:SELECTION:PREFIX ... \\
        --langs ru,de,pl,nl --e5
"""

from __future__ import annotations

import argparse
import bisect
import json
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from translated_guard import translations

from unspin.classify import ClassifyParams
from unspin.model import Article
from unspin.pipeline import Config, fingerprint
from unspin.store import Store

POSITIVE = ("rewrite_same", "rewrite_condensed", "rewrite_framed", "mt_round_trip")
#: Snowball algorithm per language (a language without one: the first 5 letters)
STEMMERS = {
    "ru": "russian", "de": "german", "nl": "dutch", "pl": "polish", "tr": "turkish",
    "es": "spanish", "fr": "french", "it": "italian", "pt": "portuguese", "en": "english",
}  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+")


def _sig(z):
    return 1 / (1 + np.exp(-z))


def claims(rows: list[dict], p: ClassifyParams) -> np.ndarray:
    """classify's reading of each row from its stored features, for a pair in a language
    with capitals (the English whole-text model): whether it is claimed whole."""
    x = np.array([r["x"] for r in rows])
    rx = np.array([r["rx"] for r in rows])
    whole = _sig(x @ np.array(p.whole_weights) + p.whole_bias) >= p.whole_cut
    rprob = _sig(rx @ np.array(p.rewrite_weights) + p.rewrite_bias)
    out = np.zeros(len(rows), dtype=bool)
    for i, r in enumerate(rows):
        w, rewrite, second = bool(whole[i]), False, None
        reword = r["verbatim"] < p.copy_verbatim
        got, need, least = r["got_w"], r["need"], p.rewrite_min_carried
        if not w and reword:
            band = p.rewrite_band <= rprob[i] < p.rewrite_cut
            second = r["second"] if band and r["second"] >= p.rewrite_secondary else None
            if rprob[i] >= p.rewrite_cut or second is not None:
                w, rewrite = True, True
        if w:
            if got < need and not rewrite and reword and got >= least:
                rewrite = rprob[i] >= p.rewrite_cut
            if got < need and not (rewrite and second is None and got >= least):
                w = False
        out[i] = w
    return out


def _stems(doc, lang: str, zipf_max: float) -> list[set[str]]:
    import snowballstemmer
    from wordfreq import zipf_frequency

    algo = STEMMERS.get(lang)
    st = snowballstemmer.stemmer(algo) if algo else None
    out = []
    for s in doc.sentences:
        ws = [w.lower() for w in _WORD.findall(s.text)]
        ws = [w for w in ws if len(w) > 3 and zipf_frequency(w, lang) < zipf_max]
        out.append({st.stemWord(w) if st else w[:5] for w in ws})
    return out


def _chain(sims: np.ndarray, bar: float) -> float:
    """Share of the shorter text's sentences on the longest in-order chain of best
    matches at ``bar`` or above."""
    best, arg = sims.max(1), sims.argmax(1)
    tails: list[int] = []
    for i in range(len(best)):
        if best[i] >= bar:
            k = bisect.bisect_left(tails, int(arg[i]))
            tails[k : k + 1] = [int(arg[i])]
    return len(tails) / max(1, len(best))


def features(s, lg, lang: str, zipf_max: float, e5=None) -> dict[str, float]:
    """Candidate features of a pair: ``s`` the shorter doc, ``lg`` the longer."""
    f: dict[str, float] = {}
    ss, sl = _stems(s, lang, zipf_max), _stems(lg, lang, zipf_max)
    a, b = set().union(*ss), set().union(*sl)
    f["stem_in"] = len(a & b) / max(1, len(a))
    f["stem_jaccard"] = len(a & b) / max(1, len(a | b))
    sims = s.sentence_vectors @ lg.sentence_vectors.T
    f["use_chain_0.6"] = _chain(sims, 0.6)
    f["use_mean_best"] = float(sims.max(1).mean())
    if e5 is not None:
        es = e5(s) @ e5(lg).T
        f["e5_chain_0.9"] = _chain(es, 0.9)
        f["e5_mean_best"] = float(es.max(1).mean())
    return f


def _auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """Probability a positive scores above a negative (ties half): scikit-learn's ROC AUC."""
    if not len(pos) or not len(neg):
        return float("nan")
    from sklearn.metrics import roc_auc_score

    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    return float(roc_auc_score(y, np.r_[pos, neg]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", required=True, help="a Store folder for the fingerprints")
    ap.add_argument("--rows", required=True, help="rows of bench/fit_caseless.py --rows")
    ap.add_argument("--piles", nargs="*", default=[])
    ap.add_argument("--guard", action="append", default=[], help="SETS:SELECTION:PREFIX")
    ap.add_argument("--langs", default="ru,de,pl,nl")
    ap.add_argument("--zipf", type=float, default=5.0, help="content words under this Zipf")
    ap.add_argument("--e5", action="store_true", help="also the second encoder's chains")
    args = ap.parse_args()
    langs = set(args.langs.split(","))
    rows = [
        r
        for r in map(json.loads, open(args.rows, encoding="utf-8"))
        if r["lang"] in langs and (r["kind"] in POSITIVE or r["kind"] == "independent_event")
    ]
    piles = {Path(p).name: Path(p) for p in args.piles}
    guards = {g.split(":")[2]: Path(g.split(":")[0]) for g in args.guard}
    store = Store(args.cache)
    docs: dict[tuple[str, str], dict] = {}

    def group_docs(group: str, lang: str) -> dict:
        if (group, lang) not in docs:
            if group in guards:
                arts = translations(guards[group] / f"{group}-{lang}", lang)
            elif group in piles:
                lines = open(piles[group] / "articles.jsonl", encoding="utf-8")
                arts = [
                    Article(id=r["id"], text=r["text"], title=r.get("title"))
                    for r in map(json.loads, lines)
                ]
            else:
                raise SystemExit(f"{group}: give its pile (--piles) or guard (--guard)")
            got = fingerprint(arts, Config(), cache=store)
            store.commit()
            docs[(group, lang)] = {d.id: d for d in got}
        return docs[(group, lang)]

    e5 = None
    if args.e5:
        from unspin.embed import E5Embedder

        model, seen = E5Embedder(threads=2), {}

        def e5(d):
            if d.id not in seen:
                seen[d.id] = model.encode([s.text for s in d.sentences])
            return seen[d.id]

    feats = []
    for r in rows:
        by = group_docs(r["group"], r["lang"])
        a, b = by[r["a"]], by[r["b"]]
        s, lg = (a, b) if len(a.article.text) <= len(b.article.text) else (b, a)
        feats.append(features(s, lg, r["lang"], args.zipf, e5))
    store.close()
    p = ClassifyParams()
    claimed = claims(rows, p)
    kinds = np.array([r["kind"] for r in rows])
    pos = np.isin(kinds, POSITIVE)
    missed, free = pos & ~claimed, ~pos & ~claimed
    print(f"{len(rows)} rows: {dict(Counter(r['kind'] for r in rows))}")
    print(
        f"classify's reading replayed: rewrites found {int((pos & claimed).sum())} / "
        f"{int(pos.sum())}, independent same-event pairs claimed {int((~pos & claimed).sum())}"
        f" / {int((~pos).sum())}"
    )
    names = list(feats[0])
    m = np.array([[f[n] for n in names] for f in feats])
    print("\nAUC, a missed rewrite against an independent pair not claimed:")
    for j, n in enumerate(names):
        print(f"  {n:16s} {_auc(m[missed, j], m[free, j]):.2f}")
    from sklearn.linear_model import LogisticRegression

    x = np.hstack([np.array([r["rx"] for r in rows]), m])
    groups = np.array([r["group"] for r in rows])
    score = np.zeros(len(rows))
    todo = missed | free
    for g in sorted(set(groups[todo])):
        te, tr = todo & (groups == g), todo & (groups != g)
        model_g = LogisticRegression(C=1.0, max_iter=5000, class_weight="balanced")
        score[te] = model_g.fit(x[tr], pos[tr]).predict_proba(x[te])[:, 1]
    print("\na logistic model over the rewrite features and these, one group out:")
    for t in (0.5, 0.7, 0.8, 0.9):
        took = score >= t
        print(
            f"  from {t:.1f}: missed rewrites taken {int((took & missed).sum())} / "
            f"{int(missed.sum())}, independent pairs taken {int((took & free).sum())} / "
            f"{int(free.sum())}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
