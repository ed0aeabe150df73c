"""Fit the classify stage's two models on the tuning sets; print the parameters to ship.

Usage: PYTHONPATH=src:bench .venv/bin/python bench/fit_classify.py [--cache DIR]
           [--routes /work/deriv/routes-tune] [--mixed /work/deriv/mixed-tune51]
           [--ntrex ../shared/data/ntrex_dev/articles.jsonl --ntrex-cache DIR]
           [--labelled-only FOLDER]
       PYTHONPATH=src:bench .venv/bin/python bench/fit_classify.py --cross-language SET...
           [--refit untranslated,kept_words,number_format]

(The second form refits only the cross-language direction evidence on translation pairs,
the other weights held: see :func:`fit_cross_language`.)

Tuning data only (the held-out sets are never read here):

* ``--routes``: an ``unspin eval make-routes ... --split tune`` folder (MT round trips
  through three languages, a thesaurus spinner, one-way translations, model-written
  rewrites of the tune split);
* ``--mixed``: an ``unspin eval make-derivatives`` folder (partial reuse, partial round
  trips, edited copies, copies with injected edits, round trips);
* ``--labelled-only`` (repeatable): further such folders of which only the labelled
  pairs are read, e.g. one made from Reuters-21578 (short wire items: a corrected
  re-issue of a four-line notice is a whole copy too); a wire corpus's own candidate
  pairs are full of real re-issues, so none of them is taken as a negative;
* independent coverage: same-event pairs of the ECB+ dev training topics (fold A: odd
  topics) and of the PAC dev training events (fold A), as ``bench/fit_story_model.py``
  splits them;
* independent coverage across outlets (``--ntrex``): same-language candidate pairs of
  *different* NTREX dev documents of half A (the half whose documents are even in file
  order; ``unspin eval ntrex`` reports half B apart): several outlets' own reports of one
  event (a short brief beside a long wire story among them), in every language of the
  set, none a derivative of the other (kind ``independent_ntrex``);
* natural pairs of the tune half (``bench/natural_pairs.py``): pairs of untouched BBC
  articles of the two derivative sets read by hand, verdicts in
  ``bench/natural_pairs_tune.tsv`` (``--natural``): the BBC's own updates of one story,
  each with facts of its own, are not whole (kind ``natural_not_whole``); the held half's
  natural pairs are kept out of the unlabelled sample;
* negatives: a sample of the unlabelled candidate pairs of the two derivative sets.

1. The whole-derivative model (``ClassifyParams.whole_weights``/``whole_bias``): logistic
   regression over ``unspin.evidence.TYPING_FEATURES`` on same-language pairs, label 1 for
   a labelled copy/spin/rewrite, 0 for partial reuse, independent coverage, natural
   updates and unlabelled candidates. Each kind of pair weighs the same in all (a handful
   of condensed rewrites count as much as hundreds of unlabelled pairs), and the negatives
   ``--neg-weight`` times more: calling independent reporting a rewrite costs a user more
   than a missed rewrite.
   ``--neg-weight`` 3 (against 10: condensed rewrites 19 of 20 whole instead of 15, at
   40 instead of 26 of 1,500 ECB+ same-event pairs, which are mostly reprints of one wire
   story; 8 of 8 read by hand were) and ``C`` 1 were chosen on this data.
2. The direction model (``direction_weights``/``direction_margin``): logistic regression
   without intercept over the direction evidence values of every labelled reuse pair
   (typed with the model of step 1), label "a is the source"; the margin is the one that
   maximises right minus wrong (undecided: 0) over the same pairs.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np
from fit_story_model import load_sets
from natural_pairs import VERDICTS, WHOLE_VERDICT, corpus_ids, load_verdicts, pair_half
from sklearn.linear_model import LogisticRegression

from unspin.align import align
from unspin.candidates import candidate_pairs
from unspin.classify import ClassifyParams, reuse_type
from unspin.corpus import CorpusSupport
from unspin.evidence import TYPING_FEATURES, PairCtx, direction_values
from unspin.model import Article
from unspin.pipeline import Config, fingerprint
from unspin.store import Store

WHOLE_KINDS = {
    "mt_spa",
    "mt_cat",
    "mt_epo",
    "synonym",
    "rewrite_same",
    "rewrite_condensed",
    "rewrite_framed",
    "roundtrip",
    "edited_copy",
    "injected_edits",
} | {"natural_whole"}


def load_folder(path: Path) -> tuple[list[Article], list[dict]]:
    arts = [
        Article(id=r["id"], text=r["text"], title=r.get("title"))
        for r in map(json.loads, open(path / "articles.jsonl", encoding="utf-8"))
    ]
    labels = [json.loads(x) for x in open(path / "labels.jsonl", encoding="utf-8")]
    return arts, labels


def collect(args) -> tuple[list[dict], list[dict]]:
    """Typing rows and direction rows (per pair: the Docs, alignment, support, label)."""
    rng = random.Random(0)
    cfg = Config()
    p = cfg.classify
    store = Store(args.cache)
    typing, dirs = [], []
    oof = json.loads(Path(args.style_oof).read_text()) if args.style_oof else {}
    natural = load_verdicts(Path(args.natural))  # hand verdicts on natural pairs (tune half)
    nat_seen: set[tuple[str, str]] = set()
    extra = [Path(x) for x in args.labelled_only]
    for folder in (Path(args.routes), Path(args.mixed), *extra):
        arts, labels = load_folder(folder)
        docs = fingerprint(arts, cfg, cache=store)
        store.commit()
        if oof:
            _style_out_of_fold(docs, oof)
        support = CorpusSupport(docs)
        by_id = {d.id: d for d in docs}
        lab = {tuple(sorted((x["source"], x["derivative"]))): x for x in labels}
        for (i, j), x in lab.items():
            a, b = by_id[i], by_id[j]
            al = align(a, b, cfg.align)
            row = dict(a=a, b=b, al=al, support=support, kind=x["kind"], label=x)
            dirs.append(row)
            if a.lang == b.lang:
                typing.append(row)
        if folder in extra:
            # a wire corpus's own candidates hold many real reissues and copies: its
            # unlabelled pairs are no negatives, only its labelled pairs are read
            print(f"{folder}: {len(labels)} labelled pairs (labelled only)", flush=True)
            continue
        der = {x["derivative"] for x in labels}
        origin = {x["derivative"]: x["source"] for x in labels}
        cid = corpus_ids(folder)
        unl = []
        n_nat = 0
        for i, j in candidate_pairs(docs, cfg.candidates):
            a, b = docs[i], docs[j]
            key = tuple(sorted((a.id, b.id)))
            if key in lab or (a.id in der and b.id in der) or a.lang != b.lang:
                continue  # labelled, or two derivatives of one source (reuse of each other)
            if origin.get(a.id) == b.id or origin.get(b.id) == a.id:
                continue
            if a.id in cid and b.id in cid:
                ckey = tuple(sorted((cid[a.id], cid[b.id])))
                if ckey in natural and ckey not in nat_seen:
                    nat_seen.add(ckey)
                    n_nat += 1
                    al = align(a, b, cfg.align)
                    # one kind per side of the line (an "update" and an "other" alike are
                    # not whole): a kind weighs the same however few pairs it has
                    kind = "natural_whole" if WHOLE_VERDICT[natural[ckey]] else "natural_not_whole"
                    typing.append(dict(a=a, b=b, al=al, support=support, kind=kind))
                    continue
                if ckey in natural or pair_half(*ckey) == "held":
                    continue  # read once already, or kept out of tuning for the report
            unl.append((a, b))
        for a, b in rng.sample(unl, min(args.unlabelled, len(unl))):
            al = align(a, b, cfg.align)
            typing.append(dict(a=a, b=b, al=al, support=support, kind="unlabelled"))
        print(
            f"{folder}: {len(labels)} labelled pairs, {n_nat} hand-labelled natural pairs, "
            f"{len(unl)} unlabelled candidates",
            flush=True,
        )
    store.close()
    for s in load_sets(args.cache_stories):
        train = s.train("A")
        support = CorpusSupport(train)
        for x, y in itertools.combinations(train, 2):
            if s.gold[x.id] == s.gold[y.id]:
                a, b = sorted((x, y), key=lambda d: d.id)
                al = align(a, b, cfg.align)
                typing.append(dict(a=a, b=b, al=al, support=support, kind=f"independent_{s.name}"))
    if args.ntrex:
        typing += ntrex_rows(Path(args.ntrex), args.ntrex_cache, cfg)
    _ = p
    return typing, dirs


def _style_out_of_fold(docs: list, oof: dict[str, float]) -> None:
    """Put each training text's cross-validated style probability (``--style-oof``, written
    by ``bench/fit_model_style.py``) in place of the shipped model's in-sample one: what the
    style model says of texts it has not seen. (``model_style`` is a decider now, left out
    of this fit: its weight and bar come from ``bench/fit_style_bar.py``, which reads the
    same out-of-fold table.)"""
    from dataclasses import replace as _replace

    from fit_model_style import oof_key

    from unspin.evidence import doc_facts

    n = 0
    for d in docs:
        p = oof.get(oof_key(d.article.text))
        if p is not None and d.lang == "en":
            d._facts = _replace(doc_facts(d), style=p)
            n += 1
    print(f"  style: {n} of {len(docs)} texts read out of fold", flush=True)


def ntrex_rows(path: Path, cache: str | None, cfg: Config) -> list[dict]:
    """Same-language candidate pairs of different NTREX documents of half A."""
    from unspin.evaluate.loaders import load_ntrex

    v = load_ntrex(path)
    store = Store(cache) if cache else None
    docs = fingerprint(v.articles, cfg, cache=store)
    if store is not None:
        store.close()
    half = v.halves()
    train = [d for d in docs if half[v.doc[d.id]] == 0]
    support = CorpusSupport(train)
    rows = []
    for i, j in sorted(candidate_pairs(train, cfg.candidates)):
        a, b = sorted((train[i], train[j]), key=lambda d: d.id)
        if a.lang == b.lang and v.doc[a.id] != v.doc[b.id]:
            al = align(a, b, cfg.align)
            rows.append(dict(a=a, b=b, al=al, support=support, kind="independent_ntrex"))
    print(f"{path}: {len(rows)} same-language pairs of different documents (half A)", flush=True)
    return rows


def fit_whole(typing: list[dict], params: ClassifyParams, neg_weight: float, c: float):
    names = params.whole_features
    X = np.array(
        [
            [
                TYPING_FEATURES[n](PairCtx(r["a"], r["b"], r["al"], params, r["support"]))
                for n in names
            ]
            for r in typing
        ]
    )
    y = np.array([r["kind"] in WHOLE_KINDS for r in typing])
    kinds = [r["kind"] for r in typing]
    count = Counter(kinds)
    w = np.array([(1.0 if k in WHOLE_KINDS else neg_weight) / count[k] for k in kinds])
    w *= len(w) / w.sum()
    model = LogisticRegression(C=c, max_iter=10000).fit(X, y, sample_weight=w)
    weights = tuple(round(float(v), 3) for v in model.coef_[0])
    bias = round(float(model.intercept_[0]), 3)
    pred = model.predict_proba(X)[:, 1] >= params.whole_cut
    per = defaultdict(Counter)
    for k, got in zip(kinds, pred):
        per[k][bool(got)] += 1
    print("\nwhole-derivative model (fitted data):")
    for k in sorted(per):
        print(f"  {k:24s} whole {per[k][True]:4d}  not {per[k][False]:4d}")
    _cross_validate(X, np.array(kinds), names, neg_weight, c, params.whole_cut)
    return weights, bias


def _cross_validate(X, kinds, names, neg_weight: float, c: float, cut: float) -> None:
    """Five folds (stratified by kind), for the configured features and for each one left
    out: the mean over kinds of the share of pairs on the wrong side of the line, and the
    pairs wrong per kind. A feature earns its place when leaving it out raises the error."""
    import warnings

    from sklearn.model_selection import StratifiedKFold

    print("\nfive-fold cross-validation (mean error over kinds; pairs wrong per kind):")
    for drop in (None, *names):
        cols = [k for k, n in enumerate(names) if n != drop]
        pred = np.zeros(len(kinds), bool)
        with warnings.catch_warnings():  # a kind with fewer pairs than folds
            warnings.simplefilter("ignore", UserWarning)
            folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, kinds))
        for tr, te in folds:
            kt = kinds[tr]
            y = np.array([k in WHOLE_KINDS for k in kt])
            count = Counter(kt)
            w = np.array([(1.0 if k in WHOLE_KINDS else neg_weight) / count[k] for k in kt])
            w *= len(w) / w.sum()
            m = LogisticRegression(C=c, max_iter=10000).fit(X[tr][:, cols], y, sample_weight=w)
            pred[te] = m.predict_proba(X[te][:, cols])[:, 1] >= cut
        wrong = Counter(k for k, g in zip(kinds, pred) if g != (k in WHOLE_KINDS))
        count = Counter(kinds)
        err = float(np.mean([wrong[k] / count[k] for k in count]))
        shown = ", ".join(f"{k} {n}" for k, n in sorted(wrong.items()))
        print(f"  {'all features' if drop is None else 'without ' + drop:24s} {err:.4f}  {shown}")


def _direction_weights(
    X: np.ndarray, y: np.ndarray, w: np.ndarray, fixed: np.ndarray | None = None
) -> np.ndarray:
    """Logistic regression without intercept over ``X`` (label "a is the source"), each
    pair also in the other order (evidence negated), L2 with C = 1. ``fixed``: NaN for a
    weight to fit, a number for one held at that value (an offset)."""
    if fixed is None or np.isnan(fixed).all():
        model = LogisticRegression(C=1.0, fit_intercept=False, max_iter=10000).fit(
            np.vstack([X, -X]), np.concatenate([y, ~y]), sample_weight=np.concatenate([w, w])
        )
        return model.coef_[0]
    from scipy.optimize import minimize

    free = np.isnan(fixed)
    off, Xf, sy = X[:, ~free] @ fixed[~free], X[:, free], np.where(y, 1.0, -1.0)

    def loss(beta: np.ndarray) -> float:
        z = sy * (off + Xf @ beta)  # both orders of a pair: the same margin, counted twice
        return float(2 * (w * np.logaddexp(0.0, -z)).sum() + 0.5 * beta @ beta)

    beta = minimize(loss, np.zeros(int(free.sum())), method="L-BFGS-B").x
    out = fixed.copy()
    out[free] = beta
    return out


def _best_margin(z: np.ndarray, y: np.ndarray) -> tuple[int, float, int, int]:
    """(right minus wrong, margin, right, wrong) at the margin in 0, 0.1, ..., 3 with the
    most right minus wrong (undecided: 0). A pair with no evidence at all (z == 0) stays
    undecided whatever the margin: a margin of 0 would otherwise direct it by id order."""
    best = None
    for margin in np.round(np.arange(0.0, 3.01, 0.1), 2):
        decided = (np.abs(z) >= margin) & (z != 0)
        right = int(((z > 0) == y)[decided].sum())
        wrong = int(decided.sum()) - right
        cand = (right - wrong, float(margin), right, wrong)
        if best is None or cand[0] > best[0]:
            best = cand
    return best


def _outcomes(z: np.ndarray, y: np.ndarray, margin: float) -> np.ndarray:
    decided = (np.abs(z) >= margin) & (z != 0)
    return np.where(~decided, "undecided", np.where((z > 0) == y, "right", "wrong"))


def _per_kind(kinds: np.ndarray, got: np.ndarray) -> str:
    per = defaultdict(Counter)
    for k, g in zip(kinds, got):
        per[k][g] += 1
    return "; ".join(
        f"{k} {c['right']}/{c['undecided']}/{c['wrong']}" for k, c in sorted(per.items())
    )


def fit_direction(dirs: list[dict], params: ClassifyParams, hold: tuple[str, ...] = ()):
    """Direction weights and margin on every labelled pair (typed with ``params``); the
    evidence named in ``hold`` keep their shipped weights (fitted elsewhere: the
    cross-language evidence on translation sets, ``--cross-language``)."""
    names = params.direction_evidence
    X, y, kinds, rels, groups = [], [], [], [], []
    for r in dirs:
        ctx = PairCtx(r["a"], r["b"], r["al"], params, r["support"])
        rel, *_ = reuse_type(r["a"], r["b"], r["al"], params, None, r["support"], ctx)
        ctx.relation = rel or r["label"]["relation"]
        X.append(direction_values(ctx))
        y.append(r["label"]["source"] == r["a"].id)
        kinds.append(r["kind"])
        rels.append(ctx.relation)
        groups.append(r["label"]["source"])
    X, y, kinds = np.array(X), np.array(y), np.array(kinds)
    count = Counter(kinds)
    w = np.array([1.0 / count[k] for k in kinds])
    w *= len(w) / w.sum()
    # the deciders (``ClassifyParams.decider_evidence``) are weighed only where the rest is
    # unsure, so they are no column of this sum: left out here, their weight and bar
    # chosen by bench/fit_style_bar.py
    dec = [k for k, n in enumerate(names) if n in params.decider_evidence]
    X[:, dec] = 0.0
    hold = (*hold, *(names[k] for k in dec))
    fixed = np.array(
        [wt if n in hold else np.nan for n, wt in zip(names, params.direction_weights)]
    )
    weights = tuple(round(float(v), 3) for v in _direction_weights(X, y, w, fixed))
    z = X @ np.array(weights)
    shown = []
    for margin in (0.0, 0.1, 0.2, 0.3, 0.5, 1.0):
        got = Counter(_outcomes(z, y, margin))
        shown.append(f"{margin}: {got['right']}/{got['wrong']}/{got['undecided']}")
    print("\ndirection margin: right/wrong/undecided at", "; ".join(shown))
    _, margin, right, wrong = _best_margin(z, y)
    held = f" (held: {', '.join(hold)})" if hold else ""
    print(f"\ndirection model{held}: weights {dict(zip(names, weights))}")
    print(f"margin {margin}: right {right}, wrong {wrong}, undecided {len(y) - right - wrong}")
    per = defaultdict(Counter)
    for k, g in zip(kinds, _outcomes(z, y, margin)):
        per[k][g] += 1
    for k in sorted(per):
        print(f"  {k:24s} {dict(per[k])}")
    print("\nper evidence: pairs it spoke on, pointing to the source (clipped value != 0):")
    sy = np.where(y, 1.0, -1.0)
    for k, n in enumerate(names):
        spoke = X[:, k] != 0
        right_k = int((np.sign(X[:, k]) == sy)[spoke].sum())
        print(f"  {n:20s} spoke on {int(spoke.sum()):4d}, pointing right on {right_k}")
    _cross_validate_direction(X, y, kinds, np.array(groups), w, fixed, names, hold)
    return weights, float(margin)


def _cross_validate_direction(X, y, kinds, groups, w, fixed, names, hold) -> None:
    """Five folds grouped by source article (a source's every derivative in one fold: its
    three rewrites, its round trip and its copies), weights and margin fitted on four and
    read on the fifth; for the configured evidence and for each one left out (its column
    0). Right / undecided / wrong per kind of pair, undecided counted apart."""
    from sklearn.model_selection import GroupKFold

    print("\ndirection, five folds grouped by source (right/undecided/wrong per kind):")
    folds = list(GroupKFold(5).split(X, y, groups))
    for drop in (None, *[n for n in names if n not in hold]):
        Xd = X.copy()
        if drop is not None:
            Xd[:, names.index(drop)] = 0.0
        got = np.empty(len(y), dtype=object)
        for tr, te in folds:
            wt = w[tr] * len(tr) / w[tr].sum()
            beta = _direction_weights(Xd[tr], y[tr], wt, fixed)
            _, margin, *_ = _best_margin(Xd[tr] @ beta, y[tr])
            got[te] = _outcomes(Xd[te] @ beta, y[te], margin)
        label = "all evidence" if drop is None else "without " + drop
        c = Counter(got)
        print(f"  {label:26s} {c['right']}/{c['undecided']}/{c['wrong']}: {_per_kind(kinds, got)}")


def fit_cross_language(specs: list[str], params: ClassifyParams, refit: list[str]):
    """Refit the weights of the evidence named in ``refit`` on labelled translation pairs
    (``bench/translation_direction.py`` sets, given the relation ``translation``), the
    other direction weights held at their shipped values (an offset: on pairs across
    languages most of them say nothing, so they keep what the full fit gave them). Same
    loss as :func:`fit_direction` (logistic, no intercept, both orders of every pair, each
    set weighing the same, L2 with C = 1); the margin is kept."""
    from scipy.optimize import minimize
    from translation_direction import load_set

    from unspin.corpus import CorpusSupport as Support
    from unspin.model import Alignment

    names = params.direction_evidence
    free = [names.index(n) for n in refit]
    fixed = np.array([0.0 if k in free else w for k, w in enumerate(params.direction_weights)])
    cfg = Config(embedder="hashing")  # cross-language evidence reads the texts only
    X, y, groups = [], [], []
    for spec in specs:
        arts, pairs = load_set(spec)
        docs = fingerprint(arts, cfg)
        by_id, support = {d.id: d for d in docs}, Support(docs)
        for src, tr, _ in pairs:
            a, b = sorted((by_id[src], by_id[tr]), key=lambda d: d.id)
            ctx = PairCtx(a, b, Alignment(a.id, b.id, [], {}), params, support)
            ctx.relation = "translation"
            X.append(direction_values(ctx))
            y.append(1.0 if src == a.id else -1.0)
            groups.append(spec)
        print(f"{spec}: {len(pairs)} translation pairs", flush=True)
    X, y = np.array(X), np.array(y)
    count = Counter(groups)
    sw = np.array([1.0 / count[g] for g in groups])
    sw *= len(sw) / sw.sum()
    off, Xf = X @ fixed, X[:, free]

    def loss(beta: np.ndarray) -> float:
        z = y * (off + Xf @ beta)  # both orders of a pair: the same margin, so counted twice
        return float(2 * (sw * np.logaddexp(0.0, -z)).sum() + 0.5 * beta @ beta)

    beta = minimize(loss, np.zeros(len(free)), method="L-BFGS-B").x
    weights = fixed.copy()
    weights[free] = beta
    weights = tuple(round(float(v), 3) for v in weights)
    z = X @ np.array(weights)
    decided = (np.abs(z) >= params.direction_margin) & (z != 0)
    ok = np.sign(z) == y
    print(f"\nrefitted {dict(zip(refit, (weights[k] for k in free)))}")
    for g in [*count, None]:
        sel = np.array([g is None or x == g for x in groups])
        r, d = int((decided & ok & sel).sum()), int((decided & sel).sum())
        print(f"  {g or 'all':60s} right {r}, wrong {d - r}, undecided {int(sel.sum()) - d}")
    for k in free:
        spoke = X[:, k] != 0
        right = int((np.sign(X[:, k]) == y)[spoke].sum())
        print(f"  {names[k]:20s} spoke on {int(spoke.sum())}, pointing right on {right}")
    return weights


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--routes", default="/work/deriv/routes-tune")
    ap.add_argument("--mixed", default="/work/deriv/mixed-tune51")
    ap.add_argument("--cache", default="/work/deriv/cache")
    ap.add_argument("--cache-stories", default="/tmp/unspin_story_cache")
    ap.add_argument(
        "--natural", default=str(VERDICTS), help="hand verdicts on natural pairs (tune half)"
    )
    ap.add_argument(
        "--ntrex",
        default="",
        help="NTREX dev articles.jsonl (half A pairs of different documents: independent)",
    )
    ap.add_argument("--ntrex-cache", default="", help="store with the NTREX fingerprints")
    ap.add_argument(
        "--labelled-only",
        action="append",
        default=[],
        help="a further make-derivatives folder whose labelled pairs only are read "
        "(e.g. one made from Reuters: short wire items)",
    )
    ap.add_argument("--unlabelled", type=int, default=400, help="unlabelled pairs per folder")
    ap.add_argument(
        "--style-oof",
        default="",
        help="cross-validated style probabilities of the style model's training texts "
        "(bench/fit_model_style.py --oof): used in place of the in-sample ones",
    )
    ap.add_argument(
        "--keep-whole",
        action="store_true",
        help="type the direction rows with the shipped whole-derivative weights (the refit "
        "is printed, not used): a direction-only refit",
    )
    ap.add_argument("--neg-weight", type=float, default=3.0)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument(
        "--cross-language",
        nargs="+",
        metavar="SET",
        help="only refit the weights of --refit on these translation sets "
        "(bench/translation_direction.py SETs), the rest held at the shipped values",
    )
    ap.add_argument("--refit", default="untranslated,kept_words,number_format")
    ap.add_argument(
        "--hold",
        default="",
        help="direction evidence whose shipped weights the full fit keeps (e.g. the "
        "cross-language ones, fitted on translation sets with --cross-language)",
    )
    args = ap.parse_args()
    if args.cross_language:
        dw = fit_cross_language(args.cross_language, ClassifyParams(), args.refit.split(","))
        print(f"\nClassifyParams:\n    direction_weights: tuple[float, ...] = {dw}")
        return 0
    typing, dirs = collect(args)
    params = ClassifyParams()
    ww, wb = fit_whole(typing, params, args.neg_weight, args.C)
    if not args.keep_whole:
        params = replace(params, whole_weights=ww, whole_bias=wb)
    hold = tuple(x for x in args.hold.split(",") if x)
    dw, margin = fit_direction(dirs, params, hold)
    print("\nClassifyParams:")
    print(f"    whole_weights: tuple[float, ...] = {ww}")
    print(f"    whole_bias: float = {wb}")
    print(f"    direction_weights: tuple[float, ...] = {dw}")
    print(f"    direction_margin: float = {margin}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
