"""Align stage: sentence alignment between the two articles of a candidate pair.

Sentences are matched on embedding cosine, lifted by lexical overlap, keeping a
match when it is the best for either side (so split and merged sentences align to
their counterpart) and regardless of order (reordered paragraphs). Adjacent matches
merge into passages. Matches that touch boilerplate are dropped; matches that rest on
quoted material alone are kept but flagged, because two outlets quoting the same
person is not reuse of each other.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from unspin.model import AlignedPassage, Alignment, Doc, Sentence
from unspin.normalise import content_words, unquoted_text, words


@dataclass(frozen=True)
class AlignParams:
    """Thresholds of the aligner (validated on construction)."""

    min_score: float = 0.80  # a sentence pair at or above this is "the same passage"
    min_score_cross: float = 0.65  # the same across languages (cross-lingual cosines run lower)
    strong: float = 0.88  # a match this close counts towards partial reuse
    prefilter: float = 0.55  # cosine below which no lexical check is made
    min_unquoted_words: int = 4  # shorter remainders outside quotes cannot carry reuse
    min_strong_words: int = 6  # shorter sentences (datelines, "he said") prove nothing
    max_gap: int = 1  # unaligned sentences a passage may span

    def __post_init__(self) -> None:
        for name in ("min_score", "min_score_cross", "strong", "prefilter"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"AlignParams.{name} must be in [0, 1], got {v}")
        if self.prefilter > min(self.min_score, self.min_score_cross):
            raise ValueError("AlignParams.prefilter must not exceed min_score")


def dice(a: list[str], b: list[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0
    return 2 * len(sa & sb) / (len(sa) + len(sb))


def containment(a: list[str], b: list[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / min(len(sa), len(sb))


def verbatim(a: str, b: str, k: int = 3) -> float:
    """Share of the shorter text's word k-grams found in the other (1.0 = copied)."""
    wa, wb = words(a), words(b)
    if len(wa) < k or len(wb) < k:
        return float(wa == wb)
    ga = {tuple(wa[i : i + k]) for i in range(len(wa) - k + 1)}
    gb = {tuple(wb[i : i + k]) for i in range(len(wb) - k + 1)}
    return len(ga & gb) / min(len(ga), len(gb))


def _quote_only(sa: Sentence, sb: Sentence, ta: str, tb: str, p: AlignParams) -> bool:
    if max(sa.quoted_share, sb.quoted_share) < 0.5:
        return False
    ra, rb = content_words(unquoted_text(sa, ta)), content_words(unquoted_text(sb, tb))
    if len(ra) < p.min_unquoted_words or len(rb) < p.min_unquoted_words:
        return True
    return dice(ra, rb) < 0.5


def sentence_matches(a: Doc, b: Doc, p: AlignParams) -> list[tuple[int, int, float, float, float]]:
    """Accepted sentence pairs ``(i, j, score, cosine, lexical)``."""
    if a.sentence_vectors is None or b.sentence_vectors is None:
        raise ValueError("align needs embedded docs (run fingerprint first)")
    if not len(a.sentences) or not len(b.sentences):
        return []
    cos = np.clip(a.sentence_vectors @ b.sentence_vectors.T, 0.0, 1.0)  # float error past 1
    score = cos.copy()
    lex = np.zeros_like(cos)
    for i, j in zip(*np.nonzero(cos >= p.prefilter)):
        lx = max(dice(a.tokens[i], b.tokens[j]), 0.8 * containment(a.tokens[i], b.tokens[j]))
        lex[i, j] = lx
        score[i, j] = max(cos[i, j], 0.5 * cos[i, j] + 0.5 * lx)
    best_j = score.argmax(axis=1)
    best_i = score.argmax(axis=0)
    cross = a.lang != b.lang and "und" not in (a.lang, b.lang)
    out = []
    for i, j in zip(*np.nonzero(score >= (p.min_score_cross if cross else p.min_score))):
        if best_j[i] == j or best_i[j] == i:
            out.append((int(i), int(j), float(score[i, j]), float(cos[i, j]), float(lex[i, j])))
    return out


def _passages(a: Doc, b: Doc, matches, p: AlignParams) -> list[AlignedPassage]:
    """Merge adjacent sentence matches (diagonal runs, splits, merges) into passages."""
    ta, tb = a.article.text, b.article.text
    items = []
    for i, j, sc, cs, lx in sorted(matches):
        sa, sb = a.sentences[i], b.sentences[j]
        if sa.boilerplate or sb.boilerplate:
            continue
        items.append((i, j, sc, cs, lx, _quote_only(sa, sb, ta, tb, p)))
    passages: list[AlignedPassage] = []
    groups: list[list[tuple]] = []
    for it in items:
        g = groups[-1] if groups else None
        if g and it[5] == g[-1][5]:
            li, lj = g[-1][0], g[-1][1]
            di, dj = it[0] - li, it[1] - lj
            # next sentence on either side (splits, merges), or across one unaligned
            # sentence (a rewritten or dropped one inside the block): the same passage
            skipped = [a.sentences[k] for k in range(li + 1, it[0])] + [
                b.sentences[k] for k in range(lj + 1, it[1])
            ]
            if (
                0 <= di <= p.max_gap + 1
                and 0 <= dj <= p.max_gap + 1
                and di + dj > 0
                and not any(x.boilerplate for x in skipped)
            ):
                g.append(it)
                continue
        groups.append([it])
    for g in groups:
        ai = sorted({x[0] for x in g})
        bj = sorted({x[1] for x in g})
        wts = [len(a.sentences[x[0]].text) + len(b.sentences[x[1]].text) for x in g]
        avg = np.average(np.array([x[2:5] for x in g]), axis=0, weights=wts)
        passages.append(
            AlignedPassage(
                a_start=a.sentences[ai[0]].start,
                a_end=a.sentences[ai[-1]].end,
                b_start=b.sentences[bj[0]].start,
                b_end=b.sentences[bj[-1]].end,
                score=float(avg[0]),
                semantic=float(avg[1]),
                lexical=float(avg[2]),
                a_sentences=ai,
                b_sentences=bj,
                quote_only=g[0][5],
            )
        )
    return passages


def _coverage(doc: Doc, idx: set[int]) -> float:
    content = [s for s in doc.sentences if not s.boilerplate]
    total = sum(len(s.text) for s in content)
    if not total:
        return 0.0
    return sum(len(s.text) for s in content if s.index in idx) / total


def _order(pairs: list[tuple[int, int]]) -> float:
    """Share of matched pairs on the longest order-preserving chain (1.0 = same order)."""
    if len(pairs) < 2:
        return 1.0
    seq = [j for _, j in sorted(pairs)]
    tails: list[int] = []
    import bisect

    for x in seq:
        k = bisect.bisect_right(tails, x)
        tails[k : k + 1] = [x]
    return len(tails) / len(seq)


def align(a: Doc, b: Doc, params: AlignParams | None = None) -> Alignment:
    """Align two docs and compute the features the classifier reads."""
    p = params or AlignParams()
    matches = sentence_matches(a, b, p)
    passages = _passages(a, b, matches, p)
    reuse = [x for x in passages if not x.quote_only]
    ia = {i for x in reuse for i in x.a_sentences}
    jb = {j for x in reuse for j in x.b_sentences}
    ia_all = {i for x in passages for i in x.a_sentences}
    jb_all = {j for x in passages for j in x.b_sentences}
    verb = []
    for x in reuse:
        sa = " ".join(a.sentences[i].text for i in x.a_sentences)
        sb = " ".join(b.sentences[j].text for j in x.b_sentences)
        verb.append((verbatim(sa, sb), len(sa) + len(sb)))
    w = sum(n for _, n in verb) or 1
    pair_idx = [(i, j) for i, j, *_ in matches if i in ia and j in jb]
    longest = max((len(x.a_sentences) + len(x.b_sentences) for x in reuse), default=0) / 2
    strong = [
        x
        for x in reuse
        if x.score >= p.strong
        or (a.lang != b.lang and len(x.a_sentences) + len(x.b_sentences) >= 4)
    ]
    sa = {
        i
        for x in strong
        for i in x.a_sentences
        if len(words(a.sentences[i].text)) >= p.min_strong_words
    }
    sb = {
        j
        for x in strong
        for j in x.b_sentences
        if len(words(b.sentences[j].text)) >= p.min_strong_words
    }
    feats = {
        "cov_a": _coverage(a, ia),
        "cov_b": _coverage(b, jb),
        "cov_a_with_quotes": _coverage(a, ia_all),
        "cov_b_with_quotes": _coverage(b, jb_all),
        "n_passages": float(len(reuse)),
        "n_quote_only": float(len(passages) - len(reuse)),
        "n_sent_a": float(len(ia)),
        "n_sent_b": float(len(jb)),
        "longest_run": float(longest),
        "strong_sents": float(min(len(sa), len(sb))),
        "strong_chars": float(
            min(
                sum(len(a.sentences[i].text) for i in sa), sum(len(b.sentences[j].text) for j in sb)
            )
        ),
        "verbatim": sum(v * n for v, n in verb) / w,
        "semantic": float(np.mean([x.semantic for x in reuse])) if reuse else 0.0,
        "lexical": float(np.mean([x.lexical for x in reuse])) if reuse else 0.0,
        "order": _order(pair_idx),
        "doc_sim": float(a.doc_vector @ b.doc_vector) if a.doc_vector is not None else 0.0,
    }
    return Alignment(a=a.id, b=b.id, passages=passages, features=feats)
