"""Candidate stage: which pairs are worth aligning, without an all-pairs loop.

Three independent generators, unioned (each pair remembers which found it):

* ``minhash`` - MinHash-LSH over word 3-gram shingles (rensa): near-verbatim copies.
* ``doc_knn`` / ``sent_knn`` - nearest neighbours over multilingual document and
  sentence embeddings (faiss inner product on unit vectors = cosine): spun copies and
  translations, which share few words, and partial reuse of a few paragraphs.
* ``quote`` - rare quotations shared verbatim (normalised): same-story coverage and
  common unseen sources.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from unspin.durable import write_synced
from unspin.model import Doc
from unspin.normalise import normalise_text, parse_time, words

Pair = tuple[int, int]


@dataclass(frozen=True)
class CandidateParams:
    lsh_threshold: float = 0.3
    doc_k: int = 20
    doc_min_sim: float = 0.45
    sent_k: int = 5
    sent_min_sim: float = 0.82
    quote_min_words: int = 6
    quote_max_docs: int = 50  # a "quotation" in more docs than this is boilerplate
    #: above this many sentence rows the sentence k-NN is the IVF search
    #: (:func:`ivf_neighbours`, about n^1.5) instead of the exact one (n^2). 50,000
    #: (about 6,000 articles): all of Reuters (164,000 rows) 445 -> 384 s end to end,
    #: the reuse relations the same (docs/benchmarks.md, session 53); a store keeps the
    #: answer of either search and an add updates it (:func:`_neighbours`), so an add
    #: costs no full search either way
    sent_exact_max: int = 50_000
    #: above this many documents the document k-NN is the IVF search too (with
    #: ``ivf_lists_per_sqrt`` lists and ``doc_ivf_nprobe`` probes) instead of the exact
    #: one, n^2: most of the k-NN stage's growth from 40,000 to 100,000 synthetic articles
    #: (52 -> 272 CPU s; docs/benchmarks.md, session 54). Below it, every result is as
    #: before
    doc_exact_max: int = 50_000
    #: lists each document is searched in: all of Reuters forced through the IVF search
    #: finds 0.985 of the exact search's document pairs with 32 (16: 0.957; 64: 0.997),
    #: and 79,243 of the 79,245 at similarity 0.7 or more (16: 79,157)
    doc_ivf_nprobe: int = 32
    #: IVF lists per square root of the rows (``nlist = ceil(ivf_lists_per_sqrt * sqrt(n))``):
    #: a query then compares ~``ivf_nprobe * sqrt(n) / ivf_lists_per_sqrt`` rows
    ivf_lists_per_sqrt: float = 2.0
    #: lists each sentence row is searched in (its nearest centroids)
    ivf_nprobe: int = 16

    def __post_init__(self) -> None:
        for name in ("lsh_threshold", "doc_min_sim", "sent_min_sim"):
            v = getattr(self, name)
            if not 0.0 < v <= 1.0:
                raise ValueError(f"CandidateParams.{name} must be in (0, 1], got {v}")
        if not self.ivf_lists_per_sqrt > 0:
            raise ValueError(
                f"CandidateParams.ivf_lists_per_sqrt must be > 0, got {self.ivf_lists_per_sqrt}"
            )
        for name in (
            "doc_k",
            "sent_k",
            "quote_min_words",
            "quote_max_docs",
            "sent_exact_max",
            "doc_exact_max",
            "doc_ivf_nprobe",
            "ivf_nprobe",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"CandidateParams.{name} must be >= 1")


def _add(out: dict[Pair, set[str]], i: int, j: int, why: str) -> None:
    if i != j:
        out[(min(i, j), max(i, j))].add(why)


#: ``(i, j)`` arrays of index pairs (any order, repeats and ``i == j`` allowed), as the
#: generators return them: turned into pairs by :func:`pair_codes`
PairArrays = tuple[np.ndarray, np.ndarray]


def sorted_unique(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` of a 1-d array by sorting: the same values. NumPy 2.4's
    ``np.unique`` of integers goes through a hash table and then sorts, ~15-250x slower
    on the pair codes of a pile (80,000 codes: 69 ms against 5 ms; 400,000: 0.70 s
    against 3 ms), which an add builds several times."""
    s = np.sort(np.asarray(a).ravel())
    if len(s) < 2:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def sorted_unique_counts(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(a, return_counts=True)`` of a 1-d array by sorting (see
    :func:`sorted_unique`)."""
    s = np.sort(np.asarray(a).ravel())
    if not len(s):
        return s, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], s[1:] != s[:-1]]))
    return s[starts], np.diff(np.append(starts, len(s))).astype(np.int64)


def pair_codes(i: np.ndarray, j: np.ndarray, n: int) -> np.ndarray:
    """Sorted distinct codes ``min * n + max`` of the pairs ``(i[k], j[k])``, ``i != j``:
    the code order is the order of the ``(min, max)`` tuples."""
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    ok = i != j
    i, j = i[ok], j[ok]
    return sorted_unique(np.minimum(i, j) * n + np.maximum(i, j))


def _add_arrays(out: dict[Pair, set[str]], arrays: PairArrays, n: int, why: str) -> None:
    codes = pair_codes(*arrays, max(n, 1))
    for a, b in zip((codes // max(n, 1)).tolist(), (codes % max(n, 1)).tolist()):
        out[(a, b)].add(why)


def _group_arrays(groups: Iterable[list[int]], max_size: int | None = None) -> PairArrays:
    """Every pair inside each group of indexes (groups larger than ``max_size`` skipped)."""
    xs, ys = [], []
    for members in groups:
        z = len(members)
        if 1 < z and (max_size is None or z <= max_size):
            m = np.asarray(members, dtype=np.int64)
            x, y = np.triu_indices(z, 1)
            xs.append(m[x])
            ys.append(m[y])
    if not xs:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return np.concatenate(xs), np.concatenate(ys)


#: rows (hash values) per LSH band of the MinHash digests
BAND_ROWS = 2
#: a bucket holding more articles than this is a stock phrase, not a copy: skipped
MAX_BUCKET = 1000


def band_keys(mat: np.ndarray) -> np.ndarray:
    """``(n, bands)`` keys of the LSH bands of MinHash digests ``mat`` (``(n, NUM_PERM)``
    uint64): each band's ``BAND_ROWS`` values as one opaque 16-byte value."""
    n, perm = mat.shape
    rows = np.ascontiguousarray(mat, dtype=np.uint64).reshape(n, perm // BAND_ROWS, BAND_ROWS)
    return rows.view(np.dtype((np.void, 8 * BAND_ROWS)))[..., 0]


def jaccard_ok(mat: np.ndarray, i: np.ndarray, j: np.ndarray, threshold: float) -> np.ndarray:
    """Whether the estimated Jaccard (share of equal digest values) of rows ``i`` and
    ``j`` reaches ``threshold`` (the mean as ``np.mean`` computes it)."""
    out = np.zeros(len(i), dtype=bool)
    for lo in range(0, len(i), 65536):
        eq = mat[i[lo : lo + 65536]] == mat[j[lo : lo + 65536]]
        out[lo : lo + 65536] = eq.mean(axis=1) >= threshold
    return out


def minhash_candidates(mat: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(i, j)``, ``i < j``, sharing an LSH bucket of at most ``MAX_BUCKET`` rows
    whose estimated Jaccard reaches ``threshold``: arrays sorted by ``(i, j)``."""
    n = len(mat)
    keys = band_keys(mat)
    codes = []
    for b in range(keys.shape[1]):
        order = np.argsort(keys[:, b], kind="stable")  # equal keys: rows ascending
        sk = keys[order, b]
        starts = np.flatnonzero(np.concatenate([[True], sk[1:] != sk[:-1]]))
        sizes = np.diff(np.append(starts, n))
        two = starts[sizes == 2]
        if len(two):
            codes.append(order[two].astype(np.int64) * n + order[two + 1])
        big = (sizes > 2) & (sizes <= MAX_BUCKET)
        for s, z in zip(starts[big], sizes[big]):
            m = order[s : s + z].astype(np.int64)
            x, y = np.triu_indices(z, 1)
            codes.append(m[x] * n + m[y])
    if not codes:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    uniq = sorted_unique(np.concatenate(codes))
    i, j = uniq // n, uniq % n
    ok = jaccard_ok(mat, i, j, threshold)
    return i[ok], j[ok]


def minhash_arrays(
    docs: Sequence[Doc],
    threshold: float,
    keys: list[str] | None = None,
    cache: Any = None,
) -> PairArrays:
    """LSH banding over the stored rensa digests (64 bands x 2 rows), then a check of
    the estimated Jaccard; a pair at ``threshold`` is proposed with probability > 0.99.
    Buckets of more than ``MAX_BUCKET`` articles are skipped (a stock phrase).

    With ``keys`` (one per doc, distinct) and ``cache`` (a Store with a folder), the last
    run's pairs and the digests are kept (:class:`MinhashState`, the digests in a
    :class:`VectorFile`), and a run that added or removed a few docs works out only
    their pairs (:func:`_update_minhash`); the same pairs as a full banding.
    """
    empty = np.zeros(0, dtype=np.int64)
    if len(docs) < 2:
        return empty, empty
    folder = getattr(cache, "path", None) if keys is not None else None
    if folder is None:
        mat = np.array([d.minhash for d in docs], dtype=np.uint64)
        return minhash_candidates(mat, threshold)
    slot = f"minhash:{threshold}:{BAND_ROWS}:{MAX_BUCKET}"
    old = cache.memo_get("minhash", [slot]).get(slot)
    if old is not None and old.keys == keys:
        return old.i, old.j
    width = len(docs[0].minhash) * 2  # uint64 digests as float32 pairs in the file
    vf = VectorFile(folder, slot, width)
    rows = _LazyRows(docs, _digest_row)
    out = None
    file, at, used = None, None, 0
    if old is not None and len(old.keys):
        before = vf.read(old.file, old.used)
        kept = _kept_vectors(rows, keys, old, vf)
        if kept is not None and before is not None:
            mat32, file, at, used = kept
            mat = mat32.view(np.uint64)
            out = _update_minhash(mat, keys, old, before.view(np.uint64), threshold)
    if out is None:
        mat = np.array([d.minhash for d in docs], dtype=np.uint64)
        out = minhash_candidates(mat, threshold)
    if file is None:
        file = vf.new_name(getattr(old, "file", None))
        vf.append(file, 0, mat.view(np.float32))
        at, used = np.arange(len(docs), dtype=np.int64), len(docs)
    cache.memo_put("minhash", {slot: MinhashState(list(keys), out[0], out[1], file, at, used)})  # type: ignore[arg-type]
    vf.prune(file)
    return out


class MinhashState:
    """The MinHash pairs of a list of docs, kept between runs: the docs' keys in order,
    the pairs as ``(i, j)`` arrays of places in it, and where the digests are kept (a
    :class:`VectorFile`, ``file``, each doc's row ``at``, ``used`` rows)."""

    def __init__(
        self, keys: list[str], i: np.ndarray, j: np.ndarray, file: str, at: np.ndarray, used: int
    ) -> None:
        self.keys, self.i, self.j = keys, i, j
        self.file, self.at, self.used = file, at, used


class _LazyRows(Sequence):
    """One row per doc, made by ``row(doc)`` when asked for: an update reads only the
    new docs' rows (the kept ones come from the store's vector file)."""

    def __init__(self, docs: Sequence[Doc], row: Callable[[Doc], np.ndarray]) -> None:
        self.docs = docs
        self.row = row

    def __len__(self) -> int:
        return len(self.docs)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        return self.row(self.docs[i])


def _doc_vector_row(doc: Doc) -> np.ndarray:
    return doc.doc_vector


def _digest_row(doc: Doc) -> np.ndarray:
    """A doc's MinHash digest as a float32 row (the uint64 values' bytes)."""
    return np.asarray(doc.minhash, dtype=np.uint64).view(np.float32)


#: above this many docs added or removed at once, the MinHash pairs are banded again
#: from scratch rather than updated
MINHASH_UPDATE_MAX = 256


def _bucket_mates(bands: np.ndarray, row: np.ndarray) -> np.ndarray:
    """``(bands, n)``: per band, which rows of ``bands`` (``(n, bands, 2)`` uint64) have
    the band value of ``row`` (``(bands, 2)``)."""
    return ((bands[:, :, 0] == row[None, :, 0]) & (bands[:, :, 1] == row[None, :, 1])).T


def _update_minhash(
    mat: np.ndarray, keys: list[str], old: MinhashState, old_mat: np.ndarray, threshold: float
) -> PairArrays | None:
    """The MinHash pairs of digests ``mat`` (rows ``keys``) from ``old``, the pairs of
    other rows (some removed, some added), or None when that cannot be done exactly here.

    A pair of two kept rows is a pair now exactly when it was: its digests are the same,
    and so is every bucket's standing (at most ``MAX_BUCKET`` rows or not), unless a
    bucket an added or removed row is in crossed that bound: then None (banded again).
    New pairs are those of the added rows with their buckets' members."""
    n = len(keys)
    if appended(old.keys, keys):
        omap = np.arange(len(old.keys), dtype=np.int64)
    else:
        pos = {key: x for x, key in enumerate(keys)}
        if len(pos) != n:
            return None
        omap = np.fromiter(
            (pos.get(key, -1) for key in old.keys), dtype=np.int64, count=len(old.keys)
        )
    kept = omap[omap >= 0]
    if len(kept) > 1 and not bool(np.all(np.diff(kept) > 0)):
        return None
    fresh = np.ones(n, dtype=bool)
    fresh[kept] = False
    new = np.flatnonzero(fresh)
    gone = np.flatnonzero(omap < 0)
    if len(new) + len(gone) > MINHASH_UPDATE_MAX:
        return None
    nb = mat.shape[1] // BAND_ROWS
    if BAND_ROWS != 2:
        return None
    bands = np.ascontiguousarray(mat).reshape(n, nb, 2)
    at_old = np.asarray(old.at, dtype=np.int64)
    gone_rows = np.asarray(old_mat[at_old[gone]]).reshape(len(gone), nb, 2)
    new_rows = bands[new]
    xs, ys = [], []
    for r, row in [(int(x), bands[x]) for x in new] + [(-1, g) for g in gone_rows]:
        mates = _bucket_mates(bands, row)  # (bands, n) in the rows of now
        now = mates.sum(axis=1)
        # the bucket's size before: less the added rows in it, plus the removed ones
        was = now - _bucket_mates(new_rows, row).sum(axis=1)
        if len(gone):
            was = was + _bucket_mates(gone_rows, row).sum(axis=1)
        if bool(np.any((now <= MAX_BUCKET) != (was <= MAX_BUCKET))):
            return None  # a bucket crossed the bound: its old pairs change too
        if r >= 0:
            ok = (now >= 2) & (now <= MAX_BUCKET)
            mate = np.flatnonzero(mates[ok].any(axis=0))
            mate = mate[mate != r]
            xs.append(np.full(len(mate), r, dtype=np.int64))
            ys.append(mate)
    qi, qj = omap[old.i], omap[old.j]
    keep = (qi >= 0) & (qj >= 0)
    parts_i, parts_j = [qi[keep]], [qj[keep]]
    if xs:
        a, b = np.concatenate(xs), np.concatenate(ys)
        codes = pair_codes(a, b, n)
        a, b = codes // n, codes % n
        ok = jaccard_ok(mat, a, b, threshold)
        parts_i.append(a[ok])
        parts_j.append(b[ok])
    return np.concatenate(parts_i), np.concatenate(parts_j)


def minhash_pairs(docs: Sequence[Doc], threshold: float, out: dict[Pair, set[str]]) -> None:
    """:func:`minhash_arrays` into ``out``."""
    _add_arrays(out, minhash_arrays(docs, threshold), len(docs), "minhash")


#: above this many vectors, exact search (quadratic) gives way to an HNSW graph
EXACT_KNN_MAX = 200_000


def _knn(vectors: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """k+1 nearest neighbours of every vector (itself included) by inner product.

    Exact below ``EXACT_KNN_MAX`` vectors; above, faiss HNSW (approximate: a true
    neighbour is occasionally missed, which only costs a candidate pair).
    """
    import faiss

    d = vectors.shape[1]
    if len(vectors) <= EXACT_KNN_MAX:
        index = faiss.IndexFlatIP(d)
    else:
        index = faiss.IndexHNSWFlat(d, 32, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 80
        index.hnsw.efSearch = 64
    index.add(vectors)
    return index.search(vectors, min(k + 1, len(vectors)))


#: most query rows per block of the exact neighbour search
KNN_BLOCK = 1024

#: most similarity cells (query rows x base rows) of one block: a block holds its
#: float32 matrix and one partitioned copy, 2 x 4 bytes a cell (256 MB at 2^25 cells),
#: in every process searching. With 1,024 rows a block of all of Reuters' 150,000
#: sentence rows held 1.2 GB per worker; the rows a block takes shrink as the base
#: grows, and the answer does not depend on the blocks (each query's own top k)
KNN_BLOCK_CELLS = 1 << 25


def block_rows(n_base: int) -> int:
    """Query rows per block against a base of ``n_base`` rows: ``KNN_BLOCK`` or fewer so
    that a block stays within ``KNN_BLOCK_CELLS`` cells (at least 16 rows)."""
    return max(16, min(KNN_BLOCK, KNN_BLOCK_CELLS // max(n_base, 1)))


def top_neighbours(
    queries: np.ndarray,
    query_ids: np.ndarray,
    base: np.ndarray,
    base_ids: np.ndarray,
    k: int,
    min_sim: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each query's ``k`` nearest base rows by inner product (itself included when it is
    among the base), keeping those with similarity >= ``min_sim``: ``(query id, base id,
    similarity)`` arrays. Ties are broken by the larger base id (as faiss does), so the
    answer does not depend on how the base is split: the top ``k`` of the union of
    per-block top-``k`` lists is the top ``k`` of the whole (how a cluster engine computes
    it block by block).

    Exact; only similarities at or above ``min_sim`` are ever sorted (a neighbour below
    it is dropped by every generator anyway and cannot push out one above it).
    """
    parts = []
    step = block_rows(len(base))
    for lo in range(0, len(queries), step):
        q, b, v = _block_top(queries[lo : lo + step] @ base.T, k, min_sim, base_ids)
        parts.append((query_ids[lo + q], b, v))
    return joined_neighbours(parts)


#: ``(query id, base id, similarity)`` arrays of a neighbour search
Neighbours = tuple[np.ndarray, np.ndarray, np.ndarray]


def no_neighbours() -> Neighbours:
    """The empty :data:`Neighbours` of a search that found none (int64 ids, float32)."""
    empty = np.zeros(0, dtype=np.int64)
    return empty, empty, np.zeros(0, dtype=np.float32)


def joined_neighbours(parts: Sequence[Neighbours]) -> Neighbours:
    """Per-block :data:`Neighbours` joined in the order given (none: :func:`no_neighbours`)."""
    if not parts:
        return no_neighbours()
    q, b, v = (np.concatenate([x[i] for x in parts]) for i in range(3))
    return q, b, v


def _block_top(
    sim: np.ndarray, k: int, min_sim: float, base_ids: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Of a block of similarities (query rows x base columns): each row's top ``k`` at
    ``min_sim`` or above as ``(row, base id, similarity)``, rows ascending, then
    similarity descending, then base id descending."""
    if sim.shape[1] > k:
        r, c, v = _above_kth(sim, k, np.float32(min_sim))
    else:
        r, c = np.nonzero(sim >= min_sim)
        v = sim[r, c]
    # per query: similarity descending, then base id descending (faiss's order of
    # ties, so the exact search keeps the neighbours faiss kept)
    order = np.lexsort((-base_ids[c], -v, r))
    r, c, v = r[order], c[order], v[order]
    first = np.searchsorted(r, r, side="left")
    keep = (np.arange(len(r)) - first) < k
    return r[keep], base_ids[c[keep]], v[keep]


#: rows per side of a tile of :func:`self_search` (from ``n / SELF_TILES`` rows, within
#: these bounds): enough tiles to map onto the engine's processes, each tile's product
#: within ``KNN_BLOCK_CELLS`` cells
SELF_TILE_MIN = 512
SELF_TILE_MAX = 4096
SELF_TILES = 16


def self_tile(n: int) -> int:
    """Rows per side of a :func:`self_search` tile for ``n`` rows."""
    return max(SELF_TILE_MIN, min(SELF_TILE_MAX, -(-n // SELF_TILES)))


def _tile_tops(
    sim: np.ndarray, k: int, min_sim: float, row_ids: np.ndarray, col_ids: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Of one tile of similarities: each row's top ``k`` among the columns and each
    column's top ``k`` among the rows (at ``min_sim`` or above), as ``(query id, base id,
    similarity)``: one comparison with the bar serves both, and only the rows (columns)
    with more than ``k`` hits are partitioned, as in :func:`_above_kth`."""
    bar = np.float32(min_sim)
    n, m = sim.shape
    flat = np.flatnonzero(sim.ravel() >= bar)
    r, c = np.divmod(flat, m)
    v = sim.ravel()[flat]
    keep_r = np.ones(len(v), dtype=bool)
    keep_c = np.ones(len(v), dtype=bool)
    if m > k:
        over = np.flatnonzero(np.bincount(r, minlength=n) > k)
        if len(over):
            cut = np.full(n, bar, dtype=sim.dtype)
            cut[over] = np.maximum(np.partition(sim[over], m - k, axis=1)[:, m - k], bar)
            keep_r = v >= cut[r]
    if n > k:
        over = np.flatnonzero(np.bincount(c, minlength=m) > k)
        if len(over):
            cut = np.full(m, bar, dtype=sim.dtype)
            cut[over] = np.maximum(np.partition(sim[:, over], n - k, axis=0)[n - k], bar)
            keep_c = v >= cut[c]
    q1, b1, v1 = merge_neighbours(row_ids[r[keep_r]], col_ids[c[keep_r]], v[keep_r], k)
    q2, b2, v2 = merge_neighbours(col_ids[c[keep_c]], row_ids[r[keep_c]], v[keep_c], k)
    return np.concatenate([q1, q2]), np.concatenate([b1, b2]), np.concatenate([v1, v2])


def _self_tiles(ctx: tuple, pairs: Sequence[tuple[int, int]]) -> Neighbours:
    vectors, ids, k, min_sim, tile = ctx
    parts = []
    for i, j in pairs:
        a, b = slice(i * tile, (i + 1) * tile), slice(j * tile, (j + 1) * tile)
        sim = vectors[a] @ vectors[b].T
        if i == j:  # the tile's own rows: one direction
            q, c, v = _block_top(sim, k, min_sim, ids[b])
            q = ids[a][q]
        else:  # the same products serve the other tile's rows
            q, c, v = _tile_tops(sim, k, min_sim, ids[a], ids[b])
        parts.append((q, c, v))
    return joined_neighbours(parts)


def self_search(
    vectors: np.ndarray, ids: np.ndarray, k: int, min_sim: float, mapper: Mapper | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`search` of ``vectors`` against themselves for about half the products: the
    rows are cut into square tiles and each pair of tiles multiplied once, its
    similarities serving the rows of both (an inner product is symmetric), then each
    row's top ``k`` of the union of its per-tile lists (:func:`merge_neighbours`: exact,
    ties by the larger base id as in :func:`top_neighbours`; the same arrays in the same
    order). Exact up to rounding, as :func:`search` is: a float32 product's last bit
    depends on the shape of the matrix product it is computed in, so where many rows are
    near-identical the tie at a row's ``k``-th neighbour can fall the other way
    (docs/benchmarks.md, session 30: 9 of 28,858 relations of all of Reuters)."""
    n = len(vectors)
    if n == 0:
        return no_neighbours()
    tile = self_tile(n)
    t = -(-n // tile)
    pairs = [(i, j) for i in range(t) for j in range(i, t)]
    ctx = (vectors, ids, k, min_sim, tile)
    if mapper is None or len(pairs) < 2 or n * n < SEARCH_PARALLEL_MIN_CELLS:
        parts = [_self_tiles(ctx, pairs)]
    else:
        # a few tile pairs per item: each item's lists are small, the products large
        per = max(1, len(pairs) // (8 * SELF_TILES))
        items = [pairs[x : x + per] for x in range(0, len(pairs), per)]
        parts = mapper(_self_tiles, items, ctx)
    q, b, s = (np.concatenate([p[x] for p in parts]) for x in range(3))
    return merge_neighbours(q, b, s, k)


def _above_kth(
    sim: np.ndarray, k: int, bar: np.floating
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(row, column, value)`` of the cells of ``sim`` (more than ``k`` columns) at or
    above both ``bar`` and their row's ``k``-th largest value, rows ascending, then
    columns: only those can be in a row's top ``k`` at ``bar`` or above, so the sort
    after sees about ``k`` per row, not every similar row (a text of templated lines is
    similar to itself everywhere: n^2 values sorted).

    The same cells as cutting every row at ``max(k-th largest, bar)`` (the first
    version, kept as the reference in tests/test_candidates.py), at a fraction of its
    cost: a row with at most ``k`` cells at ``bar`` or above keeps exactly those (its
    k-th largest is below ``bar``, or is the smallest of them), so only the rows with
    more are partitioned, and the block is compared once and its hits found in the flat
    array (a 2-D ``nonzero`` and a partition of every row cost as much as the product
    itself)."""
    m = sim.shape[1]
    flat = np.flatnonzero(sim.ravel() >= bar)
    r, c = np.divmod(flat, m)
    v = sim.ravel()[flat]
    over = np.flatnonzero(np.bincount(r, minlength=sim.shape[0]) > k)
    if len(over):
        # the k-th largest as the (m - k)-th smallest: one copy of those rows
        kth = np.partition(sim[over], m - k, axis=1)[:, m - k]
        cut = np.full(sim.shape[0], bar, dtype=sim.dtype)
        cut[over] = np.maximum(kth, bar)
        keep = v >= cut[r]
        r, c, v = r[keep], c[keep], v[keep]
    return r, c, v


def _search_block(ctx: tuple, lo: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    queries, query_ids, base, base_ids, k, min_sim = ctx
    hi = lo + block_rows(len(base))
    return top_neighbours(queries[lo:hi], query_ids[lo:hi], base, base_ids, k, min_sim)


#: ``mapper(fn, items, context) -> results``: an engine's map (see unspin.pipeline)
Mapper = Callable[[Callable[[Any, Any], Any], Sequence[Any], Any], list[Any]]


#: fewest similarity cells (queries x base rows) worth mapping onto an engine's processes:
#: below, forking the workers costs more than the products (an add's few new rows)
SEARCH_PARALLEL_MIN_CELLS = 1 << 24


def search(
    queries: np.ndarray,
    query_ids: np.ndarray,
    base: np.ndarray,
    base_ids: np.ndarray,
    k: int,
    min_sim: float,
    mapper: Mapper | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`top_neighbours`, its query blocks mapped with ``mapper`` (an engine's
    processes) when there are several: the same arrays, in the same order."""
    small = len(queries) * len(base) < SEARCH_PARALLEL_MIN_CELLS
    step = block_rows(len(base))
    if mapper is None or len(queries) <= step or small:
        return top_neighbours(queries, query_ids, base, base_ids, k, min_sim)
    ctx = (queries, query_ids, base, base_ids, k, min_sim)
    parts = mapper(_search_block, list(range(0, len(queries), step)), ctx)
    return tuple(np.concatenate([p[x] for p in parts]) for x in range(3))  # type: ignore[return-value]


def merge_neighbours(
    q: np.ndarray, b: np.ndarray, s: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The top ``k`` per query of several :func:`top_neighbours` lists concatenated."""
    order = np.lexsort((-b, -s, q))
    q, b, s = q[order], b[order], s[order]
    keep = (np.arange(len(q)) - np.searchsorted(q, q, side="left")) < k
    return q[keep], b[keep], s[keep]


#: k-means training rows per IVF list (the sample: the rows of smallest
#: :func:`content_hash`, so it depends on the pile, not on the order or the engine)
IVF_TRAIN_PER_LIST = 32
#: k-means rounds for the IVF centroids
IVF_TRAIN_ITER = 10
#: seed of the IVF k-means and of the content hash (fixed: the same pile gives the same
#: centroids, lists and neighbours on every run and in both engines)
IVF_SEED = 1234
#: rows per block of the hashing and of the rows-by-centroids products
IVF_BLOCK = 16384
#: similarity cells (queries x list rows) per task when the lists are mapped onto an
#: engine's processes
IVF_TASK_CELLS = 1 << 23


def ivf_list_count(n: int, lists_per_sqrt: float) -> int:
    """IVF lists for ``n`` rows: ``ceil(lists_per_sqrt * sqrt(n))``, at most ``n``."""
    return int(max(1, min(n, np.ceil(lists_per_sqrt * np.sqrt(max(n, 1))))))


def content_hash(vectors: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row's float32 bytes (fixed multipliers, wrapping sums, then
    a splitmix64 finaliser): equal rows hash equal whatever their place, so the IVF
    training sample is the same rows in any engine and any order of the pile."""
    v = np.asarray(vectors, dtype=np.float32)
    d = v.shape[1] if v.ndim == 2 else 0
    rng = np.random.default_rng(IVF_SEED)
    mult = rng.integers(1, 2**63 - 1, size=d, dtype=np.uint64) | np.uint64(1)
    out = np.empty(len(v), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for lo in range(0, len(v), IVF_BLOCK):
            u = np.ascontiguousarray(v[lo : lo + IVF_BLOCK]).view(np.uint32).astype(np.uint64)
            h = (u * mult).sum(axis=1, dtype=np.uint64)
            h ^= h >> np.uint64(30)
            h *= np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(27)
            h *= np.uint64(0x94D049BB133111EB)
            h ^= h >> np.uint64(31)
            out[lo : lo + IVF_BLOCK] = h
    return out


def ivf_sample(hashes: np.ndarray, ids: np.ndarray, size: int) -> np.ndarray:
    """Places of the ``size`` rows of smallest ``(hash, id)``, in that order (what the
    Spark engine collects with ``orderBy("h", "row").limit(size)``)."""
    order = np.lexsort((np.asarray(ids), np.asarray(hashes)))
    return order[:size]


def ivf_train(sample: np.ndarray, nlist: int) -> np.ndarray:
    """``(nlist, d)`` unit centroids: spherical k-means (faiss, fixed seed) of the rows
    ``sample`` in their order."""
    import faiss

    x = np.ascontiguousarray(sample, dtype=np.float32)
    nlist = max(1, min(nlist, len(x)))
    km = faiss.Kmeans(
        x.shape[1],
        nlist,
        niter=IVF_TRAIN_ITER,
        seed=IVF_SEED,
        spherical=True,
        min_points_per_centroid=1,
        max_points_per_centroid=max(IVF_TRAIN_PER_LIST, len(x)),
    )
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)  # one thread: no spinning for a busy core, one sum order
    try:
        km.train(x)
    finally:
        faiss.omp_set_num_threads(threads)
    return np.ascontiguousarray(km.centroids, dtype=np.float32)


def ivf_centroids(vectors: np.ndarray, ids: np.ndarray, lists_per_sqrt: float) -> np.ndarray:
    """The IVF centroids of the rows ``vectors`` (``ids``: their row ids, the order of
    equal hashes): :func:`ivf_train` on :func:`ivf_sample`."""
    n = len(vectors)
    nlist = ivf_list_count(n, lists_per_sqrt)
    at = ivf_sample(content_hash(vectors), ids, min(n, IVF_TRAIN_PER_LIST * nlist))
    return ivf_train(np.asarray(vectors)[at], nlist)


def ivf_probes(vectors: np.ndarray, centroids: np.ndarray, nprobe: int) -> np.ndarray:
    """``(n, p)``: each row's ``p = min(nprobe, lists)`` most similar centroids, most
    similar first (equal similarities: the smaller list first). The first is the row's
    own list (the list it is stored in)."""
    p = min(nprobe, len(centroids))
    ct = np.ascontiguousarray(centroids, dtype=np.float32).T
    out = np.empty((len(vectors), p), dtype=np.int64)
    for lo in range(0, len(vectors), IVF_BLOCK):
        sim = np.asarray(vectors[lo : lo + IVF_BLOCK], dtype=np.float32) @ ct
        if p < sim.shape[1]:
            top = np.argpartition(-sim, p - 1, axis=1)[:, :p]
        else:
            top = np.broadcast_to(np.arange(p), (len(sim), p))
        vals = np.take_along_axis(sim, top, axis=1)
        order = np.lexsort((top, -vals), axis=1)
        out[lo : lo + len(sim)] = np.take_along_axis(top, order, axis=1)
    return out


def _ivf_task(ctx: tuple, lists: Sequence[int]) -> Neighbours:
    vectors, ids, k, min_sim, members, mstart, queries, qstart = ctx
    parts = []
    for li in lists:
        b = members[mstart[li] : mstart[li + 1]]
        q = queries[qstart[li] : qstart[li + 1]]
        parts.append(top_neighbours(vectors[q], ids[q], vectors[b], ids[b], k, min_sim))
    return joined_neighbours(parts)


def ivf_neighbours(
    vectors: np.ndarray,
    ids: np.ndarray,
    k: int,
    min_sim: float,
    lists_per_sqrt: float,
    nprobe: int,
    mapper: Mapper | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Approximate :func:`top_neighbours` of every row among all rows, about n^1.5:
    each row is stored in the IVF list of its nearest centroid (:func:`ivf_centroids`)
    and searched exactly in the lists of its ``nprobe`` nearest centroids; the top ``k``
    of the union of the per-list top-``k`` lists (:func:`merge_neighbours`). A true
    neighbour stored in a list the row does not probe is missed (a candidate pair lost
    at most). Deterministic: the same pile gives the same arrays on every run, and the
    Spark engine computes the same lists block by block (one block per list)."""
    ids = np.asarray(ids, dtype=np.int64)
    centroids = ivf_centroids(vectors, ids, lists_per_sqrt)
    nlist = len(centroids)
    probes = ivf_probes(vectors, centroids, nprobe)
    p = probes.shape[1]
    members = np.argsort(probes[:, 0], kind="stable")
    mstart = np.searchsorted(probes[members, 0], np.arange(nlist + 1))
    flat = probes.ravel()
    qo = np.argsort(flat, kind="stable")
    queries = qo // p  # rows ascending within a list
    qstart = np.searchsorted(flat[qo], np.arange(nlist + 1))
    cells = np.diff(mstart) * np.diff(qstart)
    tasks, cur, acc = [], [], 0
    for li in np.flatnonzero(cells).tolist():
        cur.append(li)
        acc += int(cells[li])
        if acc >= IVF_TASK_CELLS:
            tasks.append(cur)
            cur, acc = [], 0
    if cur:
        tasks.append(cur)
    ctx = (vectors, ids, k, min_sim, members, mstart, queries, qstart)
    if mapper is None or len(tasks) < 2 or int(cells.sum()) < SEARCH_PARALLEL_MIN_CELLS:
        parts = [_ivf_task(ctx, t) for t in tasks]
    else:
        parts = mapper(_ivf_task, tasks, ctx)
    if not parts:
        return no_neighbours()
    return merge_neighbours(*joined_neighbours(parts), k)


class RowKeys(Sequence):
    """The keys of the sentence rows, row ``n`` of doc ``d`` keyed ``f"{docs[d]}:{n}"``
    (:func:`sent_knn_arrays`), held as the doc keys and each doc's row count rather than
    as one string per row: an add compares, pickles and reads back ~20,000 doc keys and
    an array at 20,000 articles, not ~170,000 row strings. Equal to the list of the
    strings it stands for (and to another ``RowKeys`` of the same rows); the strings are
    made only when a caller indexes or iterates it (a removal matching rows by key)."""

    def __init__(self, docs: Sequence[str], counts: np.ndarray) -> None:
        counts = np.asarray(counts, dtype=np.int64)
        some = counts > 0  # a doc without rows has no key among the rows
        self.docs = [d for d, c in zip(docs, some.tolist()) if c]
        self.counts = counts[some]
        self._n = int(self.counts.sum())
        self._list: list[str] | None = None

    def __len__(self) -> int:
        return self._n

    def strings(self) -> list[str]:
        """The row keys as strings (made once)."""
        if self._list is None:
            self._list = [
                f"{d}:{n}" for d, c in zip(self.docs, self.counts.tolist()) for n in range(c)
            ]
        return self._list

    def __getitem__(self, i):  # type: ignore[override]
        return self.strings()[i]

    def __iter__(self):
        return iter(self.strings())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RowKeys):
            return self.docs == other.docs and np.array_equal(self.counts, other.counts)
        if isinstance(other, list):
            return len(other) == self._n and self.strings() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def extends(self, old: Sequence[str]) -> bool:
        """:func:`appended`: whether these rows are ``old``'s with rows after them."""
        if not isinstance(old, RowKeys):
            return len(old) <= self._n and self.strings()[: len(old)] == list(old)
        m = len(old.docs)
        if m == 0:
            return True
        if len(self.docs) < m or self.docs[:m] != old.docs:
            return False
        mine, theirs = self.counts[:m], old.counts
        # the old last doc's rows a prefix of this one's (as the strings' prefix would be)
        return bool(np.array_equal(mine[:-1], theirs[:-1]) and mine[-1] >= theirs[-1])

    def __getstate__(self) -> dict[str, Any]:
        return {"docs": self.docs, "counts": self.counts, "_n": self._n, "_list": None}


class NeighbourState:
    """The exact search's answer for a list of rows, kept between runs: row keys in order
    and the ``(row, neighbour, similarity)`` arrays (see :func:`_neighbours`); with a
    store, where the rows' vectors are kept (:class:`VectorFile`), so the next run
    stacks only the vectors of its new rows."""

    def __init__(
        self,
        keys: list[str],
        q: np.ndarray,
        c: np.ndarray,
        s: np.ndarray,
        file: str | None = None,
        at: np.ndarray | None = None,
        used: int = 0,
    ) -> None:
        self.keys, self.q, self.c, self.s = keys, q, c, s
        #: the vector file's name in the store's folder, each row's place in it, and
        #: how many of its rows are in use (rows before ``used`` are never written again)
        self.file, self.at, self.used = file, at, used


#: float32 vectors per row kept in a vector file are rewritten (compacted into a new
#: file) when the file holds more than this many times the rows in use
VECTOR_FILE_SLACK = 2.0


class VectorFile:
    """The vectors a kept neighbour state was searched over, as a float32 row-major file
    in the store's folder (``knn-TAG-N.f32``; the tag names the state's slot and the
    vectors' width, so no other state's file is ever read or written), appended per add
    and memory-mapped.

    Crash safety: rows before the state's ``used`` are never written again; an add
    writes its new rows after them and syncs the file before the state naming them is
    stored, so a run killed before that leaves the stored state and the rows it names
    intact (the next add writes over the rows past ``used``). A file whose size does not
    hold the rows the state names is not read (the search starts again)."""

    def __init__(self, folder: Any, slot: str, dim: int) -> None:
        import hashlib
        from pathlib import Path

        self.folder, self.dim = Path(folder), dim
        self.tag = hashlib.sha1(f"{slot}|{dim}".encode()).hexdigest()[:12]

    def path(self, file: str) -> Any:
        return self.folder / file

    def read(self, file: str | None, used: int) -> np.ndarray | None:
        """The first ``used`` rows of ``file``, memory-mapped (None: missing or short)."""
        if not file or used <= 0 or not file.startswith(f"knn-{self.tag}-"):
            return None
        path = self.path(file)
        try:
            size = path.stat().st_size
        except OSError:
            return None
        if size < used * self.dim * 4:
            return None
        mat = np.memmap(path, dtype=np.float32, mode="r", shape=(used, self.dim))
        return mat.view(np.ndarray)

    def append(self, file: str, used: int, rows: np.ndarray) -> None:
        """Write ``rows`` after the first ``used`` rows of ``file`` and sync it."""
        import os

        path = self.path(file)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            os.ftruncate(fd, used * self.dim * 4)
            os.lseek(fd, used * self.dim * 4, os.SEEK_SET)
            write_synced(fd, np.ascontiguousarray(rows, dtype=np.float32).tobytes())
        finally:
            os.close(fd)

    def new_name(self, old: str | None) -> str:
        """A file name other than ``old`` (a compacted or first file)."""
        n = 0
        if old and old.startswith(f"knn-{self.tag}-"):
            try:
                n = int(old.rsplit("-", 1)[1].split(".")[0]) + 1
            except (IndexError, ValueError):
                n = 0
        return f"knn-{self.tag}-{n}.f32"

    def prune(self, keep: str) -> None:
        """Remove this tag's other vector files (earlier ones no state names now)."""
        for p in self.folder.glob(f"knn-{self.tag}-*.f32"):
            if p.name != keep:
                p.unlink(missing_ok=True)


def _stacked(rows: np.ndarray | Sequence[np.ndarray], dim: int) -> np.ndarray:
    if isinstance(rows, np.ndarray):
        return rows.astype(np.float32, copy=False)
    if not len(rows):
        return np.zeros((0, dim), np.float32)
    return np.vstack(rows).astype(np.float32, copy=False)


def appended(old: Sequence[str], keys: Sequence[str]) -> bool:
    """Whether ``keys`` are ``old`` with rows appended (an add), so kept rows keep their
    places and no key needs looking up."""
    if isinstance(keys, RowKeys):
        return keys.extends(old)
    if isinstance(old, RowKeys):
        return len(keys) >= len(old) and list(keys[: len(old)]) == old.strings()
    return len(keys) >= len(old) and keys[: len(old)] == old


def _contiguous(at: np.ndarray) -> bool:
    """Whether ``at`` is one ascending run of consecutive places (``lo, lo + 1, ...``)."""
    return int(at[-1]) - int(at[0]) == len(at) - 1 and bool(np.all(np.diff(at) == 1))


def _kept_vectors(
    rows: np.ndarray | Sequence[np.ndarray],
    keys: list[str],
    old: NeighbourState,
    vf: VectorFile,
) -> tuple[np.ndarray, str, np.ndarray, int] | None:
    """The vectors of rows ``keys``: kept rows' from the last run's vector file, only
    the new rows' taken from ``rows`` (appended to the file). Returns the vectors (a view
    of the file when the rows are its first rows in order, as after an append), the
    file, each row's place in it and the rows in use; None when the file cannot serve.
    The vectors are a view of the file whenever the rows are one run of its rows in order
    (after an append; after the rows were all written again behind the old ones), a copy
    otherwise (rows removed or replaced in between), until the file holds more than
    ``VECTOR_FILE_SLACK`` times the rows in use and is compacted."""
    at_old = getattr(old, "at", None)
    base = vf.read(getattr(old, "file", None), getattr(old, "used", 0))
    if base is None or at_old is None or len(at_old) != len(old.keys):
        return None
    m = len(old.keys)
    if appended(old.keys, keys):  # an add: the kept rows first, in order
        at = np.concatenate([np.asarray(at_old, dtype=np.int64), np.full(len(keys) - m, -1)])
    else:
        where = dict(zip(old.keys, at_old.tolist()))
        at = np.fromiter((where.get(k, -1) for k in keys), dtype=np.int64, count=len(keys))
    new = np.flatnonzero(at < 0)
    file, used = old.file, old.used
    if len(new) == len(keys):  # nothing kept (every row keyed anew): a new file, not
        file, used = vf.new_name(file), 0  # the new rows behind a file of dead ones
    if len(new):
        fresh = _stacked([rows[i] for i in new.tolist()], vf.dim)
        vf.append(file, used, fresh)  # type: ignore[arg-type]
        at[new] = used + np.arange(len(new))
        used += len(new)
    mat = vf.read(file, used)
    if mat is None:
        return None
    if len(at) and _contiguous(at):
        # one run of the file's rows, in order (the whole file after an append; the rows
        # appended after a rewrite of them all, as the first add after a code change
        # makes): a view, not a copy
        lo = int(at[0])
        return mat[lo : lo + len(at)], file, at, used  # type: ignore[return-value]
    vectors = np.asarray(mat[at])
    if used > VECTOR_FILE_SLACK * max(len(keys), 1):
        file = vf.new_name(file)
        vf.append(file, 0, vectors)
        at, used = np.arange(len(keys), dtype=np.int64), len(keys)
    return vectors, file, at, used  # type: ignore[return-value]


def _neighbours(
    vectors: np.ndarray | Sequence[np.ndarray],
    k: int,
    min_sim: float,
    keys: list[str] | None = None,
    cache: Any = None,
    name: str = "",
    mapper: Mapper | None = None,
    dim: int | None = None,
    ivf: tuple[int, float, int] | None = None,
):
    """(row, neighbour row, similarity) of the ``k + 1`` nearest (itself included) above
    ``min_sim``: exact up to ``EXACT_KNN_MAX`` rows, faiss HNSW above. ``vectors``: a
    matrix, or the rows as a list (stacked only where needed; ``dim`` their width).
    ``ivf``: ``(exact_max, lists_per_sqrt, nprobe)``: a full search of more than
    ``exact_max`` rows is the IVF search (:func:`ivf_neighbours`, about n^1.5) instead of
    the exact one (n^2).

    With ``cache`` (a Store) and ``keys`` (one per row, distinct), the answer of the last
    run is kept and updated (:func:`_update_neighbours`) when rows were added or removed
    since (``unspin add`` / ``remove``): only new rows, and old rows that lost a
    neighbour, are searched against all; the other old rows' lists are merged with the
    new rows (the top ``k`` of a union of top-``k`` lists is exact), so a change of a few
    rows costs O(rows), not O(rows^2). The kept rows' vectors are then read from the
    store's vector file (:class:`VectorFile`), so only the new rows of ``vectors`` are
    stacked. Otherwise everything is searched again. A kept answer of the IVF search is
    updated the same way: the new rows' lists are exact, the kept rows' lists the IVF
    search's (recall 0.999 against the exact search, docs/benchmarks.md, session 15), so
    an add to a large store costs what it costs below ``exact_max``, not a full IVF
    search; a rescan of the same rows may differ where the IVF search missed a
    neighbour."""
    n = len(vectors)
    if dim is None:
        dim = int(vectors.shape[1]) if isinstance(vectors, np.ndarray) else len(vectors[0])
    use_ivf = ivf is not None and n > ivf[0]
    if n > EXACT_KNN_MAX and not use_ivf:
        sims, idx = _knn(_stacked(vectors, dim), k)
        r = np.repeat(np.arange(n), idx.shape[1])
        c, v = idx.ravel(), sims.ravel()
        ok = (c >= 0) & (v >= min_sim)
        return r[ok], c[ok], v[ok]
    ids = np.arange(n, dtype=np.int64)
    kk = min(k + 1, n)
    slot = f"{name}:{k}:{min_sim}"
    old = None
    if cache is not None and keys is not None:
        old = cache.memo_get("neighbours", [slot]).get(slot)
    if old is not None and old.keys == keys:
        return old.q, old.c, old.s
    folder = getattr(cache, "path", None) if keys is not None else None
    vf = VectorFile(folder, slot, dim) if folder is not None and name else None
    out = None
    file, at, used = None, None, 0
    mat = None
    if old is not None and len(old.keys) and n and vf is not None:
        kept = _kept_vectors(vectors, keys, old, vf)  # type: ignore[arg-type]
        if kept is not None:
            mat, file, at, used = kept
    if old is not None and len(old.keys) and n:
        if mat is None:
            mat = _stacked(vectors, dim)
        out = _update_neighbours(mat, keys, old, kk, min_sim, mapper)  # type: ignore[arg-type]
    if out is None:
        if mat is None:
            mat = _stacked(vectors, dim)
        if use_ivf:
            out = ivf_neighbours(mat, ids, kk, min_sim, ivf[1], ivf[2], mapper)  # type: ignore[index]
        else:
            out = self_search(mat, ids, kk, min_sim, mapper)
    if cache is not None and keys is not None:
        if vf is not None and file is None:
            file = vf.new_name(getattr(old, "file", None))
            vf.append(file, 0, mat)
            at, used = np.arange(n, dtype=np.int64), n
        kept_keys = keys if isinstance(keys, RowKeys) else list(keys)
        cache.memo_put("neighbours", {slot: NeighbourState(kept_keys, *out, file, at, used)})
        if vf is not None and file is not None:
            vf.prune(file)
    return out


#: above this share of rows new or with a lost neighbour, the neighbour lists are
#: searched again from scratch rather than updated (the update is then no cheaper)
NEIGHBOUR_UPDATE_MAX_SHARE = 0.5


#: margin below ``min_sim`` within which a kept row counts as in reach of a new row
#: (:func:`entering_rows`): the pre-check's products may round otherwise than the search's
REACH_MARGIN = 1e-3
#: rows per block of :func:`entering_rows`' products
REACH_BLOCK = 65536


def entering_rows(
    vectors: np.ndarray, rows: np.ndarray, new: np.ndarray, min_sim: float
) -> np.ndarray:
    """Those of ``rows`` (ascending) whose similarity to some row of ``new`` reaches
    ``min_sim - REACH_MARGIN``: the only rows a new row can enter the neighbour list of
    (a list keeps similarities at or above ``min_sim`` only). One product per block of
    rows against the few new ones; nothing sorted."""
    if not len(rows) or not len(new):
        return np.zeros(0, dtype=np.int64)
    bar = np.float32(min_sim - REACH_MARGIN)
    newt = np.ascontiguousarray(new, dtype=np.float32).T
    dense = len(rows) == len(vectors) or (len(rows) and rows[-1] - rows[0] + 1 == len(rows))
    out = []
    for lo in range(0, len(rows), REACH_BLOCK):
        part = rows[lo : lo + REACH_BLOCK]
        block = vectors[part[0] : part[-1] + 1] if dense else vectors[part]
        hit = (np.asarray(block, dtype=np.float32) @ newt >= bar).any(axis=1)
        out.append(part[hit])
    return np.concatenate(out)


def _update_neighbours(
    vectors: np.ndarray,
    keys: list[str],
    old: NeighbourState,
    kk: int,
    min_sim: float,
    mapper: Mapper | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The exact search's answer for ``vectors`` (rows ``keys``) from ``old``, the answer
    for other rows (some removed, some added; the rows kept in the same order), or None
    when that does not hold or the update would cost as much as a full search.

    A kept row none of whose listed neighbours was removed keeps its list (removing rows
    outside a top-``kk`` list leaves it the top ``kk``), renumbered (kept rows keep their
    order, so ties still break by the larger id) and merged with its best new rows; new
    rows and kept rows that lost a listed neighbour are searched against all rows."""
    n = len(keys)
    if appended(old.keys, keys):  # an add: old rows keep their places
        omap = np.arange(len(old.keys), dtype=np.int64)
    else:
        pos = {key: i for i, key in enumerate(keys)}
        if len(pos) != n:
            return None  # keys not distinct: rows cannot be matched
        omap = np.fromiter(
            (pos.get(key, -1) for key in old.keys), dtype=np.int64, count=len(old.keys)
        )
    kept = omap[omap >= 0]
    if len(kept) > 1 and not bool(np.all(np.diff(kept) > 0)):
        return None  # rows reordered
    fresh = np.ones(n, dtype=bool)
    fresh[kept] = False
    qn, cn = omap[old.q], omap[old.c]
    broken = sorted_unique(qn[(qn >= 0) & (cn < 0)])  # kept rows that lost a listed neighbour
    redo = np.sort(np.concatenate([np.flatnonzero(fresh), broken]))
    if len(redo) > NEIGHBOUR_UPDATE_MAX_SHARE * n:
        return None
    intact = np.setdiff1d(kept, broken, assume_unique=True)
    ok = (qn >= 0) & (cn >= 0) & ~np.isin(qn, broken)
    q0, c0, s0 = qn[ok], cn[ok], old.s[ok]
    ids = np.arange(n, dtype=np.int64)
    new = np.flatnonzero(fresh)
    if len(new) and len(intact):
        # only kept rows within reach of a new row (similarity near ``min_sim`` or above)
        # can take one into their lists: those are searched and merged, the rest kept
        reach = entering_rows(vectors, intact, vectors[new], min_sim)
        if len(reach):
            q2, c2, s2 = search(vectors[reach], reach, vectors[new], new, kk, min_sim, mapper)
            touched = np.isin(q0, reach)
            qm, cm, sm = merge_neighbours(
                np.concatenate([q0[touched], q2]),
                np.concatenate([c0[touched], c2]),
                np.concatenate([s0[touched], s2]),
                kk,
            )
            q0 = np.concatenate([q0[~touched], qm])
            c0 = np.concatenate([c0[~touched], cm])
            s0 = np.concatenate([s0[~touched], sm])
    if len(redo):
        q1, c1, s1 = search(vectors[redo], redo, vectors, ids, kk, min_sim, mapper)
        return np.concatenate([q0, q1]), np.concatenate([c0, c1]), np.concatenate([s0, s1])
    return q0, c0, s0


def doc_knn_arrays(
    docs: Sequence[Doc],
    k: int,
    min_sim: float,
    keys: list[str] | None = None,
    cache: Any = None,
    mapper: Mapper | None = None,
    ivf: tuple[int, float, int] | None = None,
) -> PairArrays:
    """Each doc with its ``k`` nearest docs at ``min_sim`` or above (document vectors);
    ``ivf`` as for :func:`_neighbours` (``CandidateParams.doc_exact_max``)."""
    if len(docs) < 2:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    rows = _LazyRows(docs, _doc_vector_row)
    r, c, _ = _neighbours(
        rows, k, min_sim, keys, cache, "doc", mapper, len(docs[0].doc_vector), ivf
    )
    return r, c


def doc_knn_pairs(
    docs: Sequence[Doc],
    k: int,
    min_sim: float,
    out: dict[Pair, set[str]],
    keys: list[str] | None = None,
    cache: Any = None,
    mapper: Mapper | None = None,
) -> None:
    """:func:`doc_knn_arrays` into ``out``."""
    arrays = doc_knn_arrays(docs, k, min_sim, keys, cache, mapper)
    _add_arrays(out, arrays, len(docs), "doc_knn")


def _row_positions(d: Doc) -> list[int]:
    return [k for k, s in enumerate(d.sentences) if not s.boilerplate and len(words(s.text)) >= 5]


def sentence_rows(
    docs: Sequence[Doc], keys: list[str] | None = None, cache: Any = None
) -> tuple[list[int], list[np.ndarray]]:
    """The sentences the sentence generator indexes (content, at least five words): owner
    doc index and vector of each.

    With ``keys`` (one per doc) and ``cache`` (a Store), which sentences of each doc are
    rows is kept from the last run and only worked out for docs it did not have (the
    same rows: they depend on the doc alone)."""
    known: dict[str, list[int]] = {}
    old = None
    if cache is not None and keys is not None:
        old = cache.memo_get("rows", ["last"]).get("last")
    if old is not None and appended(old[0], keys):  # type: ignore[arg-type]
        # an add: the kept docs' rows in order, only the new docs' worked out
        m = len(old[0])
        positions = list(old[1]) + [_row_positions(d) for d in docs[m:]]
    else:
        if old is not None:
            known = dict(zip(*old))
        positions = [
            known[keys[di]] if keys is not None and keys[di] in known else _row_positions(d)
            for di, d in enumerate(docs)
        ]
    if cache is not None and keys is not None and (old is None or old[0] != keys):
        cache.memo_put("rows", {"last": (list(keys), positions)})
    counts = np.fromiter(map(len, positions), dtype=np.int64, count=len(positions))
    owner = np.repeat(np.arange(len(docs), dtype=np.int64), counts).tolist()
    at = list(chain.from_iterable(positions))
    return owner, _Rows(docs, owner, at)


class _Rows(Sequence):
    """The indexed sentences' vectors, each taken from its doc when read: the k-NN
    update reads only the new rows (the kept ones come from the store's vector file,
    :func:`_kept_vectors`), so the other docs' vectors are never touched (a store's
    docs read them on first use)."""

    def __init__(self, docs: Sequence[Doc], owner: list[int], at: list[int]) -> None:
        self.docs, self.owner, self.at = docs, owner, at

    def __len__(self) -> int:
        return len(self.owner)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        return self.docs[self.owner[i]].sentence_vectors[self.at[i]]


def sentence_hits(
    owner_r: np.ndarray, owner_c: np.ndarray, min_hits: int = 2
) -> list[tuple[int, int]]:
    """Doc pairs with at least ``min_hits`` neighbouring sentence pairs between them."""
    hits: dict[Pair, int] = defaultdict(int)
    for a, b in zip(owner_r.tolist(), owner_c.tolist()):
        if a != b:
            hits[(min(a, b), max(a, b))] += 1
    return [p for p, n in hits.items() if n >= min_hits]


def hit_arrays(owner_r: np.ndarray, owner_c: np.ndarray, n: int, min_hits: int = 2) -> PairArrays:
    """:func:`sentence_hits` as arrays (``n``: the docs' count), sorted by pair."""
    a = np.asarray(owner_r, dtype=np.int64)
    b = np.asarray(owner_c, dtype=np.int64)
    ok = a != b
    a, b = a[ok], b[ok]
    codes, counts = sorted_unique_counts(np.minimum(a, b) * n + np.maximum(a, b))
    codes = codes[counts >= min_hits]
    return codes // n, codes % n


def sent_knn_arrays(
    docs: Sequence[Doc],
    k: int,
    min_sim: float,
    keys: list[str] | None = None,
    cache: Any = None,
    mapper: Mapper | None = None,
    params: CandidateParams | None = None,
) -> PairArrays:
    """Doc pairs with two or more sentence pairs among each other's ``k`` nearest
    sentences at ``min_sim`` or above: exact up to ``params.sent_exact_max`` rows, the
    IVF search above (``params``: the defaults when None)."""
    p = params or CandidateParams()
    empty = np.zeros(0, dtype=np.int64)
    owner, rows = sentence_rows(docs, keys, cache)
    owner_a = np.asarray(owner, dtype=np.int64)
    per_doc = np.bincount(owner_a, minlength=len(docs))
    if len(rows) < 2 or np.count_nonzero(per_doc) < 2:
        return empty, empty  # a pair needs rows of two docs (no n^2 search for nothing)
    row_keys = None
    if keys is not None:  # row n of doc o: f"{keys[o]}:{n}" (RowKeys)
        row_keys = RowKeys(keys, per_doc)
    ivf = (p.sent_exact_max, p.ivf_lists_per_sqrt, p.ivf_nprobe)
    r, c, _ = _neighbours(rows, k, min_sim, row_keys, cache, "sentence", mapper, len(rows[0]), ivf)
    return hit_arrays(owner_a[r], owner_a[c], len(docs))


def sent_knn_pairs(
    docs: Sequence[Doc],
    k: int,
    min_sim: float,
    out: dict[Pair, set[str]],
    keys: list[str] | None = None,
    cache: Any = None,
    mapper: Mapper | None = None,
    params: CandidateParams | None = None,
) -> None:
    """:func:`sent_knn_arrays` into ``out``."""
    arrays = sent_knn_arrays(docs, k, min_sim, keys, cache, mapper, params)
    _add_arrays(out, arrays, len(docs), "sent_knn")


def quote_keys(doc: Doc, min_words: int) -> set[str]:
    return {normalise_text(q.text) for q in doc.quotes if len(words(q.text)) >= min_words}


def quote_arrays(
    docs: Sequence[Doc], p: CandidateParams, qkeys: Sequence[set[str]] | None = None
) -> PairArrays:
    """Pairs of docs sharing a quotation held by at most ``quote_max_docs`` docs
    (``qkeys``: each doc's :func:`quote_keys`, when the caller has them)."""
    by_quote: dict[str, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        for q in qkeys[i] if qkeys is not None else quote_keys(d, p.quote_min_words):
            by_quote[q].append(i)
    return _group_arrays(by_quote.values(), p.quote_max_docs)


def quote_pairs(
    docs: Sequence[Doc],
    p: CandidateParams,
    out: dict[Pair, set[str]],
    qkeys: Sequence[set[str]] | None = None,
) -> None:
    """:func:`quote_arrays` into ``out``."""
    _add_arrays(out, quote_arrays(docs, p, qkeys), len(docs), "quote")


def candidate_pairs(
    docs: Sequence[Doc],
    params: CandidateParams | None = None,
    keys: list[str] | None = None,
    cache: Any = None,
    mapper: Mapper | None = None,
    qkeys: Sequence[set[str]] | None = None,
) -> dict[Pair, set[str]]:
    """Index pairs ``(i, j)``, ``i < j``, with the generators that proposed them.

    ``keys`` (one per doc, everything the doc's vectors depend on) and ``cache`` (a
    Store): the nearest-neighbour searches update the last run's answer when docs were
    only appended (see :func:`_neighbours`); ``mapper``: an engine's map for their query
    blocks; ``qkeys``: each doc's :func:`quote_keys`, when the caller has them. The
    result is the same either way."""
    out: dict[Pair, set[str]] = defaultdict(set)
    for why, arrays in generator_arrays(docs, params, keys, cache, mapper, qkeys):
        _add_arrays(out, arrays, len(docs), why)
    return dict(out)


def generator_arrays(
    docs: Sequence[Doc],
    params: CandidateParams | None = None,
    keys: list[str] | None = None,
    cache: Any = None,
    mapper: Mapper | None = None,
    qkeys: Sequence[set[str]] | None = None,
) -> list[tuple[str, PairArrays]]:
    """Each generator's name and pair arrays (see :func:`candidate_pairs`)."""
    p = params or CandidateParams()
    by_hash: dict[str, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        by_hash[d.norm_hash].append(i)
    return [
        ("same_text", _group_arrays(by_hash.values())),
        ("minhash", minhash_arrays(docs, p.lsh_threshold, keys, cache)),
        (
            "doc_knn",
            doc_knn_arrays(
                docs,
                p.doc_k,
                p.doc_min_sim,
                keys,
                cache,
                mapper,
                (p.doc_exact_max, p.ivf_lists_per_sqrt, p.doc_ivf_nprobe),
            ),
        ),
        ("sent_knn", sent_knn_arrays(docs, p.sent_k, p.sent_min_sim, keys, cache, mapper, p)),
        ("quote", quote_arrays(docs, p, qkeys)),
    ]


def candidate_codes(
    docs: Sequence[Doc],
    params: CandidateParams | None = None,
    keys: list[str] | None = None,
    cache: Any = None,
    mapper: Mapper | None = None,
    qkeys: Sequence[set[str]] | None = None,
) -> np.ndarray:
    """The pairs of :func:`candidate_pairs` as sorted codes ``i * len(docs) + j``, with no
    dict of every pair built (what the pipeline reads: the pairs, not who found them)."""
    n = max(len(docs), 1)
    parts = [
        pair_codes(a, b, n)
        for _, (a, b) in generator_arrays(docs, params, keys, cache, mapper, qkeys)
    ]
    return sorted_unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)


def representative_key(d: Doc) -> tuple:
    """Sort key of the representative rule of an exact-duplicate group: the earliest
    published first (articles without a readable ``published_at`` after every dated
    one), then the smallest id."""
    t = parse_time(d.article.published_at)
    return (t is None, t.isoformat() if t is not None else "", d.id)


def representatives(docs: Sequence[Doc]) -> list[int]:
    """Per doc, the index of the representative of its exact-duplicate group (docs with
    one ``norm_hash``: the same text after normalising), chosen by
    :func:`representative_key`; a doc without an exact duplicate is its own.

    The pipeline aligns each other member with its representative only (a ``duplicate``
    relation) and lets the representative alone stand for the group in the candidate
    search and the stories: a pile of k identical texts costs k - 1 pairs, not
    k(k - 1)/2."""
    by_hash: dict[str, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        by_hash[d.norm_hash].append(i)
    rep = list(range(len(docs)))
    for members in by_hash.values():
        if len(members) > 1:
            r = min(members, key=lambda i: representative_key(docs[i]))
            for i in members:
                rep[i] = r
    return rep


def grouped_candidate_list(
    docs: Sequence[Doc],
    params: CandidateParams | None = None,
    keys: list[str] | None = None,
    cache: Any = None,
    mapper: Mapper | None = None,
    rep: list[int] | None = None,
    qkeys: Sequence[set[str]] | None = None,
) -> list[Pair]:
    """``sorted(grouped_candidate_pairs(...))``, worked out on code arrays: the pairs
    without who proposed them (the pipeline reads no more), no dict of every pair."""
    rep = representatives(docs) if rep is None else rep
    n = len(docs)
    keep = [i for i, r in enumerate(rep) if r == i]
    if len(keep) == n:
        codes = candidate_codes(docs, params, keys, cache, mapper, qkeys)
    else:
        sub = [docs[i] for i in keep]
        sub_keys = [keys[i] for i in keep] if keys is not None else None
        sub_q = [qkeys[i] for i in keep] if qkeys is not None else None
        m = max(len(keep), 1)
        inner = candidate_codes(sub, params, sub_keys, cache, mapper, sub_q)
        at = np.asarray(keep, dtype=np.int64)
        mapped = at[inner // m] * n + at[inner % m]  # keep is ascending: order kept
        ra = np.asarray(rep, dtype=np.int64)
        members = np.flatnonzero(ra != np.arange(n))
        codes = sorted_unique(np.concatenate([mapped, pair_codes(members, ra[members], n)]))
    n = max(n, 1)
    ei, ej = codes // n, codes % n
    return PairList(zip(ei.tolist(), ej.tolist()), ei, ej)


class PairList(list):
    """Candidate pairs, a list of ``(i, j)``, with their two index arrays kept beside
    it (:func:`pair_index_arrays`), so the stages that read arrays do not convert a
    list of some hundred thousand tuples again. Not to be changed in place (the arrays
    would no longer be its pairs): a stage that adds pairs makes a new list."""

    __slots__ = ("ei", "ej")

    def __init__(self, pairs: Iterable[Pair], ei: np.ndarray, ej: np.ndarray) -> None:
        super().__init__(pairs)
        if len(ei) != len(self) or len(ej) != len(self):
            raise ValueError("PairList: the index arrays do not hold its pairs")
        self.ei, self.ej = ei, ej

    def __reduce__(self):  # pickled as the pairs and the arrays
        return (PairList, (list(self), self.ei, self.ej))


def pair_index_arrays(pairs: Sequence[Pair]) -> tuple[np.ndarray, np.ndarray]:
    """The pairs' first and second indices as int64 arrays (copies of nothing for a
    :class:`PairList`, whose arrays are read-only to callers)."""
    if isinstance(pairs, PairList):
        return pairs.ei, pairs.ej
    a = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return a[:, 0].copy(), a[:, 1].copy()


def grouped_candidate_pairs(
    docs: Sequence[Doc],
    params: CandidateParams | None = None,
    keys: list[str] | None = None,
    cache: Any = None,
    mapper: Mapper | None = None,
    rep: list[int] | None = None,
    qkeys: Sequence[set[str]] | None = None,
) -> dict[Pair, set[str]]:
    """:func:`candidate_pairs` over the representatives only (``rep``: see
    :func:`representatives`), plus each other member of an exact-duplicate group paired
    with its representative (``same_text``); indexes are into ``docs``."""
    rep = representatives(docs) if rep is None else rep
    keep = [i for i, r in enumerate(rep) if r == i]
    if len(keep) == len(docs):
        return candidate_pairs(docs, params, keys, cache, mapper, qkeys)
    sub = [docs[i] for i in keep]
    sub_keys = [keys[i] for i in keep] if keys is not None else None
    out: dict[Pair, set[str]] = defaultdict(set)
    sub_q = [qkeys[i] for i in keep] if qkeys is not None else None
    for (a, b), why in candidate_pairs(sub, params, sub_keys, cache, mapper, sub_q).items():
        out[(keep[a], keep[b])] = why  # keep is ascending: keep[a] < keep[b]
    for i, r in enumerate(rep):
        if r != i:
            _add(out, i, r, "same_text")
    return dict(out)
