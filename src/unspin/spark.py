"""The scan on Apache Spark: ``unspin scan --engine spark INPUT --out OUTPUT``.

The same pipeline as the local engine, with the same pure functions of
:mod:`unspin.pipeline` doing the work, laid out as DataFrame operations:

* articles: read from any path Spark reads (Parquet, JSON Lines), numbered in input order,
  each record read by the local reader's record path (ids repeated renamed as locally);
  :func:`unspin.pipeline.prepare_work` per article;
* embeddings: the distinct sentences (by :func:`unspin.fingerprint.sentence_key`) embedded
  once each in an Arrow batch UDF, joined back and set on the docs;
* corpus statistics: each article's :class:`unspin.corpus.SupportLocal` exploded and
  counted with ``groupBy``; the counts are collected and broadcast;
* candidates: exact text hashes and MinHash bands as DataFrame columns, grouped by key
  (keyed shuffles, as text-dedup does); document and sentence nearest neighbours block by
  block (:func:`unspin.candidates.top_neighbours` on each pair of blocks, then the top ``k``
  per row of the union, which is the exact top ``k``); above
  ``CandidateParams.sent_exact_max`` sentence rows (``doc_exact_max`` documents), the IVF
  search of the local engine
  (:func:`ivf_knn`: centroids trained once on the driver, one block per list); shared
  quotations grouped by key;
* the second encoder (:mod:`unspin.second`): its plan and the briefs' vectors on the
  driver over light stand-ins of the docs (:func:`second_stage`), the docs it reads
  fetched whole, its vectors broadcast by doc index;
* per pair: :func:`unspin.pipeline.pair_result` and :func:`unspin.pipeline.pair_features`
  on the two joined docs and the broadcast statistics;
* stories: connected components by min-label propagation written with DataFrame joins
  (no graph library, no jars), split by the stricter link as the local engine does;
  :func:`unspin.pipeline.component_result` per component (``cogroup`` of its docs and pairs);
* provenance: each reuse relation's changes on the two joined docs; quotation groups and
  lineage on the driver over the articles that carry quotations (a documented limit).

Results are written as Parquet with the local engine's schema (docs/schema.md), one
folder per table under OUTPUT, plus ``manifest.json``.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from unspin.model import Article, Doc, Relation, Result

#: rows per block of the blocked nearest-neighbour search
KNN_ROWS = 2048
#: sentence row id = doc index * SENTENCE_SLOTS + position among its indexed sentences
SENTENCE_SLOTS = 1 << 20
#: rounds of min-label propagation before giving up (the graph's diameter bounds it)
MAX_CC_ROUNDS = 100


def session(master: str = "local[2]", app: str = "unspin", blas_threads: int = 1) -> Any:
    """A Spark session whose Python workers run this interpreter (and so this unspin),
    with ``blas_threads`` BLAS threads each (``Config.blas_threads``; the pair and
    component work also set it from the scan's config)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master(master)
        .appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "256")
        .config("spark.driver.memory", "2g")
        .config("spark.executorEnv.OPENBLAS_NUM_THREADS", str(blas_threads or ""))
        .getOrCreate()
    )


def _dumps(x: Any) -> bytes:
    return pickle.dumps(x, protocol=pickle.HIGHEST_PROTOCOL)


# ---------------------------------------------------------------- input

_FIELDS = ("id", "text", "title", "url", "outlet", "published_at", "lang")


def read_articles(spark: Any, path: str) -> Any:
    """The input's records numbered in input order (an RDD of ``(row, idx)``) and the
    article fields it has."""
    p = str(path)
    if p.endswith(".parquet") or (Path(p).is_dir() and any(Path(p).glob("*.parquet"))):
        df = spark.read.parquet(p)
    else:
        df = spark.read.json(p)
    # the fields the local reader maps (doc_id: the id of records without one)
    cols = [c for c in (*_FIELDS, "doc_id") if c in df.columns]
    if "text" not in cols:
        raise ValueError(f"{path}: records have no 'text' field (columns: {df.columns})")
    rdd = df.select(*cols).rdd.zipWithIndex()
    return rdd, cols


# ---------------------------------------------------------------- per article


def _articles_to_docs(
    rows: Iterator[Any], cols: list[str], params: Any, label: str, embedder: str
) -> Iterator[tuple]:
    """``(idx, id, doc, errors)`` per record: each record read into an Article by the
    local reader's own record path (``ingest._FileReader.records``: field names, ids for
    records without one, stripped metadata, checked dates, limits, the same errors and
    warnings), as a scan of the file ``label`` reads it, then prepared and its coverage
    by the ``embedder`` marked (``Doc.cross_lingual``), as the local fingerprint stage
    does."""
    from unspin.embed import BACKENDS
    from unspin.fingerprint import mark_coverage
    from unspin.ingest import read_record
    from unspin.pipeline import prepare_work

    for row, idx in rows:
        rec = {c: row[c] for c in cols if row[c] is not None}
        arts, errors = read_record(label, idx + 1, f"record {idx + 1}", rec)
        errs = _dumps(errors) if errors else None
        if not arts:
            yield (idx, None, None, errs)
            continue
        art = arts[0]
        doc = prepare_work(params, art)
        mark_coverage([doc], BACKENDS[embedder])
        yield (idx, art.id, _dumps(doc), errs)


def _renamed_ids(rows: list[tuple[int, str]], label: str) -> tuple[dict[int, str], list]:
    """New ids for the records whose id an earlier record has (``id~N``, as
    :func:`unspin.ingest.read_paths` renames them), and its warnings, in input order."""
    from unspin.ingest import _rename_duplicate

    first: dict[str, Article] = {}
    renames: dict[int, str] = {}
    warned = []
    for idx, aid in rows:
        a = Article(id=aid, text=".", input=label, location=f"record {idx + 1}")
        if aid in first:
            warned.append(_rename_duplicate(a, first))
            renames[idx] = a.id
        first[a.id] = a
    return renames, warned


def _rename_rows(it: Iterator[Any], names_b: Any) -> Iterator[tuple]:
    for r in it:
        blob = r["doc"]
        new = names_b.value.get(r["idx"])
        if new is not None:
            d: Doc = pickle.loads(blob)
            d.article.id = new
            blob = _dumps(d)
        yield (r["idx"], blob)


def _embed_batches(batches: Iterator[Any], embedder: str) -> Iterator[Any]:
    from unspin.pipeline import embed_work

    for pdf in batches:
        vecs = embed_work(embedder, list(pdf["text"]))
        yield pdf.assign(vec=[v.astype(np.float32).tobytes() for v in vecs])[["key", "vec"]]


def _encoder_rows(rows: Iterator[Any]) -> Iterator[tuple]:
    """``(idx, key, text)`` of each sentence the encoder reads, as the local fingerprint
    stage picks them (:func:`unspin.pipeline.embed_sentences`): the encoder's text of
    each sentence (:func:`unspin.fingerprint.encoder_text`), none of a doc whose
    language the encoder does not cover (it gets lexical vectors)."""
    from unspin.fingerprint import encoder_text, sentence_key

    for r in rows:
        d: Doc = pickle.loads(r["doc"])
        if d.cross_lingual is False:
            continue
        for s in d.sentences:
            text = encoder_text(d, s.text)
            yield (r["idx"], sentence_key(text), text)


def _with_vectors(rows: Iterator[Any], dim: int) -> Iterator[tuple]:
    """Each doc with its vectors set as the local fingerprint stage sets them (lexical
    ones where the encoder does not cover its language)."""
    from unspin.fingerprint import encoder_text, lexical_vectors, sentence_key, set_vectors

    for r in rows:
        doc: Doc = pickle.loads(r["doc"])
        if doc.cross_lingual is False:
            mat = lexical_vectors(doc, dim)
        else:
            vec = {
                k: np.frombuffer(v, np.float32) for k, v in zip(r["keys"] or [], r["vecs"] or [])
            }
            rows_ = [vec[sentence_key(encoder_text(doc, s.text))] for s in doc.sentences]
            mat = np.vstack(rows_) if rows_ else np.zeros((0, dim), np.float32)
        set_vectors(doc, mat.astype(np.float32, copy=False), dim)
        yield (r["idx"], _dumps(doc))


# ---------------------------------------------------------------- candidates


def _knn_block(key: Any, pdf: Any, k: int, min_sim: float) -> Any:
    """Top ``k`` of the query rows of one (query block, base block) group."""
    import pandas as pd

    from unspin.candidates import top_neighbours

    q = pdf[pdf["role"] == 0]
    b = pdf[pdf["role"] == 1]
    if not len(q) or not len(b):
        return pd.DataFrame({"q": [], "c": [], "sim": []})
    qv = np.vstack([np.frombuffer(v, np.float32) for v in q["vec"]])
    bv = np.vstack([np.frombuffer(v, np.float32) for v in b["vec"]])
    r, c, s = top_neighbours(
        qv, q["row"].to_numpy(np.int64), bv, b["row"].to_numpy(np.int64), k, min_sim
    )
    return pd.DataFrame({"q": r, "c": c, "sim": s.astype(np.float64)})


def _knn_merge(key: Any, pdf: Any, k: int) -> Any:
    import pandas as pd

    from unspin.candidates import merge_neighbours

    q, c, s = merge_neighbours(
        pdf["q"].to_numpy(np.int64),
        pdf["c"].to_numpy(np.int64),
        pdf["sim"].to_numpy(np.float64),
        k,
    )
    return pd.DataFrame({"q": q, "c": c, "sim": s})


def blocked_knn(vectors: Any, k: int, min_sim: float) -> Any:
    """``(q, c, sim)``: each row's ``k`` nearest rows (itself included) with similarity
    >= ``min_sim``, from a DataFrame ``(row long, vec binary)``. Every block of rows meets
    every block (the base side replicated once per query block), each pair of blocks
    gives its top ``k``, and the top ``k`` of their union per row is the exact answer."""
    from pyspark.sql import functions as F

    n = vectors.count()
    nb = max(1, -(-n // KNN_ROWS))
    blocks = F.array(*[F.lit(i) for i in range(nb)])
    v = vectors.withColumn("blk", (F.col("row") % nb).cast("long"))
    queries = v.select(
        F.col("blk").alias("qb"),
        F.explode(blocks).alias("bb"),
        "row",
        "vec",
        F.lit(0).alias("role"),
    )
    base = v.select(
        F.explode(blocks).alias("qb"),
        F.col("blk").alias("bb"),
        "row",
        "vec",
        F.lit(1).alias("role"),
    )
    part = (
        queries.unionByName(base)
        .groupBy("qb", "bb")
        .applyInPandas(
            lambda key, pdf: _knn_block(key, pdf, k, min_sim), "q long, c long, sim double"
        )
    )
    return part.groupBy("q").applyInPandas(
        lambda key, pdf: _knn_merge(key, pdf, k), "q long, c long, sim double"
    )


def _hash_rows(it: Iterator[Any]) -> Iterator[tuple]:
    """``(row, h, vec)`` with ``h`` the row's :func:`unspin.candidates.content_hash` as a
    signed long of the same order (top bit flipped), per partition."""
    from unspin.candidates import content_hash

    rows = list(it)
    if not rows:
        return
    mat = np.vstack([np.frombuffer(r["vec"], np.float32) for r in rows])
    h = (content_hash(mat) ^ np.uint64(1 << 63)).view(np.int64)
    for r, x in zip(rows, h.tolist()):
        yield (r["row"], x, r["vec"])


def _probe_rows(it: Iterator[Any], centroids: Any, nprobe: int) -> Iterator[tuple]:
    """``(list, row, vec, role)``: each row as a query of each of its probed lists
    (role 0) and as a base row of its own list, the first probed (role 1)."""
    from unspin.candidates import ivf_probes

    rows = list(it)
    if not rows:
        return
    mat = np.vstack([np.frombuffer(r["vec"], np.float32) for r in rows])
    probes = ivf_probes(mat, centroids.value, nprobe)
    for r, pr in zip(rows, probes.tolist()):
        for x, li in enumerate(pr):
            yield (li, r["row"], r["vec"], 0)
            if x == 0:
                yield (li, r["row"], r["vec"], 1)


def _ivf_block(key: Any, pdf: Any, k: int, min_sim: float) -> Any:
    """:func:`_knn_block` of one IVF list, its rows in row order (the local engine's
    order, so the products are the same)."""
    return _knn_block(key, pdf.sort_values(["role", "row"], kind="stable"), k, min_sim)


def ivf_knn(
    spark: Any, vectors: Any, k: int, min_sim: float, lists_per_sqrt: float, nprobe: int
) -> Any:
    """``(q, c, sim)`` as :func:`unspin.candidates.ivf_neighbours` finds them, from a
    DataFrame ``(row long, vec binary)``: the training sample (the rows of smallest
    content hash) collected and the centroids trained on the driver once, broadcast;
    each row sent to the lists it probes; one group per list searched exactly; the top
    ``k`` per row of the union."""
    from unspin.candidates import IVF_TRAIN_PER_LIST, ivf_list_count, ivf_train

    n = vectors.count()
    nlist = ivf_list_count(n, lists_per_sqrt)
    hashed = vectors.rdd.mapPartitions(_hash_rows).toDF("row long, h long, vec binary")
    sample = hashed.orderBy("h", "row").limit(min(n, IVF_TRAIN_PER_LIST * nlist)).collect()
    sample.sort(key=lambda r: (r["h"], r["row"]))
    mat = np.vstack([np.frombuffer(r["vec"], np.float32) for r in sample])
    centroids = spark.sparkContext.broadcast(ivf_train(mat, nlist))
    lists = vectors.rdd.mapPartitions(lambda it: _probe_rows(it, centroids, nprobe)).toDF(
        "qb long, row long, vec binary, role int"
    )
    part = lists.groupBy("qb").applyInPandas(
        lambda key, pdf: _ivf_block(key, pdf, k, min_sim), "q long, c long, sim double"
    )
    return part.groupBy("q").applyInPandas(
        lambda key, pdf: _knn_merge(key, pdf, k), "q long, c long, sim double"
    )


def _doc_columns(it: Iterator[Any], quote_min_words: int) -> Iterator[tuple]:
    from unspin.candidates import quote_keys
    from unspin.fingerprint import NUM_PERM

    for idx, blob in it:
        d: Doc = pickle.loads(blob)
        mh = np.array(d.minhash, dtype=np.uint64)
        bands = [bytes([b]) + mh[b * 2 : (b + 1) * 2].tobytes() for b in range(NUM_PERM // 2)]
        yield (
            idx,
            d.norm_hash,
            bands,
            mh.tobytes(),
            np.asarray(d.doc_vector, np.float32).tobytes(),
            sorted(quote_keys(d, quote_min_words)),
        )


def _sentence_rows(it: Iterator[Any]) -> Iterator[tuple]:
    from unspin.candidates import sentence_rows

    for idx, blob in it:
        d: Doc = pickle.loads(blob)
        _, rows = sentence_rows([d])
        for k, v in enumerate(rows):
            yield (idx, k, np.asarray(v, np.float32).tobytes())


def candidate_frame(spark: Any, docs: Any, config: Any) -> Any:
    """Candidate pairs ``(i, j)``, ``i < j`` (doc indexes), as the local engine finds them."""
    from pyspark.sql import functions as F

    p = config.candidates
    cols = docs.rdd.mapPartitions(
        lambda it: _doc_columns(((r["idx"], r["doc"]) for r in it), p.quote_min_words)
    ).toDF(
        "idx long, norm_hash string, bands array<binary>, mh binary, dvec binary, "
        "qkeys array<string>"
    )
    cols = cols.cache()

    def pairs_in_groups(df: Any, key: str, lo: int = 2, hi: int | None = None) -> Any:
        sized = df.groupBy(key).agg(F.collect_list("idx").alias("m"))
        sized = sized.where(F.size("m") >= lo)
        if hi is not None:
            sized = sized.where(F.size("m") <= hi)
        m = sized.select(key, F.explode("m").alias("idx"))
        return (
            m.alias("x")
            .join(m.alias("y"), key)
            .where(F.col("x.idx") < F.col("y.idx"))
            .select(F.col("x.idx").alias("i"), F.col("y.idx").alias("j"))
        )

    same = pairs_in_groups(cols.select("idx", "norm_hash"), "norm_hash")
    # MinHash-LSH: 64 bands of 2 rows as a column; a bucket over 1000 is a stock phrase
    bands = cols.select("idx", F.explode("bands").alias("band"))
    mh_pairs = pairs_in_groups(bands, "band", 2, 1000).distinct()
    sigs = cols.select("idx", "mh")
    thr = p.lsh_threshold

    def jaccard_ok(rows: Iterator[Any]) -> Iterator[tuple]:
        for r in rows:
            a = np.frombuffer(r["ma"], np.uint64)
            b = np.frombuffer(r["mb"], np.uint64)
            if np.mean(a == b) >= thr:
                yield (r["i"], r["j"])

    mh = (
        mh_pairs.join(sigs.withColumnRenamed("idx", "i").withColumnRenamed("mh", "ma"), "i")
        .join(sigs.withColumnRenamed("idx", "j").withColumnRenamed("mh", "mb"), "j")
        .rdd.mapPartitions(jaccard_ok)
        .toDF("i long, j long")
    )
    # nearest documents
    drows = cols.select(F.col("idx").alias("row"), F.col("dvec").alias("vec"))
    ndocs = drows.count()
    if ndocs > p.doc_exact_max:  # as unspin.candidates.doc_knn_arrays
        dk = ivf_knn(
            spark,
            drows,
            min(p.doc_k + 1, ndocs),
            p.doc_min_sim,
            p.ivf_lists_per_sqrt,
            p.doc_ivf_nprobe,
        )
    else:
        dk = blocked_knn(drows, p.doc_k + 1, p.doc_min_sim)
    doc_pairs = dk.where(F.col("q") != F.col("c")).select(
        F.least("q", "c").alias("i"), F.greatest("q", "c").alias("j")
    )
    # nearest sentences: two or more neighbouring sentence pairs between two docs
    # row ids ordered as the local engine's rows (doc, then sentence): same tie-breaks
    srows = docs.rdd.mapPartitions(lambda it: _sentence_rows((r["idx"], r["doc"]) for r in it))
    srows = srows.toDF("owner long, k long, vec binary").select(
        (F.col("owner") * SENTENCE_SLOTS + F.col("k")).alias("row"), "owner", "vec"
    )
    srows = srows.cache()
    nrows = srows.count()
    if nrows > p.sent_exact_max:  # as unspin.candidates.sent_knn_arrays
        sk = ivf_knn(
            spark,
            srows.select("row", "vec"),
            min(p.sent_k + 1, nrows),
            p.sent_min_sim,
            p.ivf_lists_per_sqrt,
            p.ivf_nprobe,
        )
    else:
        sk = blocked_knn(srows.select("row", "vec"), p.sent_k + 1, p.sent_min_sim)
    owners = srows.select("row", "owner")
    hits = (
        sk.join(owners.withColumnRenamed("row", "q").withColumnRenamed("owner", "oq"), "q")
        .join(owners.withColumnRenamed("row", "c").withColumnRenamed("owner", "oc"), "c")
        .where(F.col("oq") != F.col("oc"))
        .select(F.least("oq", "oc").alias("i"), F.greatest("oq", "oc").alias("j"))
        .groupBy("i", "j")
        .count()
        .where(F.col("count") >= 2)
        .select("i", "j")
    )
    quotes = pairs_in_groups(
        cols.select("idx", F.explode("qkeys").alias("quote")), "quote", 2, p.quote_max_docs
    )
    return (
        same.unionByName(mh).unionByName(doc_pairs).unionByName(hits).unionByName(quotes).distinct()
    )


# ---------------------------------------------------------------- corpus statistics


def _locals(it: Iterator[Any]) -> Iterator[tuple]:
    from unspin.corpus import SupportLocal

    for idx, blob in it:
        loc = SupportLocal(pickle.loads(blob))
        yield (
            idx,
            _dumps(loc),
            list(loc.names),
            list(loc.capitals),
            list(loc.lower),
            list(loc.words),
            loc.bigrams.view(np.int64).tolist(),
            loc.lines.view(np.int64).tolist(),
            loc.fills.view(np.int64).tolist(),
            loc.fill_frames.view(np.int64).tolist(),
        )


def corpus_stats(locs: Any) -> Any:
    """:class:`unspin.corpus.CorpusStats` from per-article locals, counted with group-bys."""
    from pyspark.sql import functions as F

    from unspin.corpus import CorpusStats

    def counts(col: str) -> dict[str, int]:
        rows = locs.select(F.explode(col).alias("w")).groupBy("w").count().collect()
        return {r["w"]: int(r["count"]) for r in rows}

    def hashed(col: str) -> tuple[np.ndarray, np.ndarray]:
        rows = locs.select(F.explode(col).alias("g")).groupBy("g").count().collect()
        keys = np.array([r["g"] for r in rows], dtype=np.int64).view(np.uint64)
        df = np.array([r["count"] for r in rows], dtype=np.int64)
        order = np.argsort(keys)
        return keys[order], df[order]

    keys, df = hashed("bigrams")
    line_keys, line_df = hashed("lines")
    # each fill key (a frame filled in one way) with its frame: a frame's distinct fills
    rows = (
        locs.select(F.explode(F.arrays_zip("fills", "fill_frames")).alias("z"))
        .groupBy(F.col("z.fills").alias("k"), F.col("z.fill_frames").alias("f"))
        .count()
        .collect()
    )
    fk = np.array([r["k"] for r in rows], dtype=np.int64).view(np.uint64)
    order = np.argsort(fk)
    fills = fk[order]
    frames = np.array([r["f"] for r in rows], dtype=np.int64).view(np.uint64)[order]
    fdf = np.array([r["count"] for r in rows], dtype=np.int64)[order]
    return CorpusStats.from_counts(
        locs.count(),
        counts("names"),
        counts("capitals"),
        counts("lower"),
        counts("words"),
        keys,
        df,
        line_keys,
        line_df,
        fills,
        fdf,
        frames,
    )


# ---------------------------------------------------------------- pairs


def _pair_rows(it: Iterator[Any], stats_b: Any, config: Any, second_b: Any) -> Iterator[tuple]:
    from unspin.corpus import SupportView
    from unspin.pipeline import pair_features, pair_forms, pair_result, set_blas_threads

    set_blas_threads(config.blas_threads)
    stats = stats_b.value
    for r in it:
        da = _second(pickle.loads(r["da"]), r["i"], second_b)
        db = _second(pickle.loads(r["db"]), r["j"], second_b)
        la, lb = pickle.loads(r["la"]), pickle.loads(r["lb"])
        view = SupportView(stats, (la, lb))
        forms = pair_forms(da, db, view, config)
        rel = pair_result(da, db, view, config, forms)
        shared = len(set(r["qa"]) & set(r["qb"]))
        f = pair_features(da, db, shared, config.stories, forms)
        yield (r["i"], r["j"], _dumps(rel) if rel is not None else None, json.dumps(f))


# ---------------------------------------------------------------- components


def connected_components(nodes: Any, edges: Any) -> Any:
    """``(node, comp)``, ``comp`` the smallest node of its component: min-label
    propagation with DataFrame joins until no label changes."""
    from pyspark.sql import functions as F

    und = edges.select("i", "j").unionByName(
        edges.select(F.col("j").alias("i"), F.col("i").alias("j"))
    )
    und = und.cache()
    labels = nodes.select(F.col("node"), F.col("node").alias("comp"))
    for _ in range(MAX_CC_ROUNDS):
        prop = (
            und.join(labels.withColumnRenamed("node", "j"), "j")
            .groupBy("i")
            .agg(F.min("comp").alias("nc"))
        )
        new = (
            labels.join(prop.withColumnRenamed("i", "node"), "node", "left")
            .select("node", F.least("comp", F.coalesce("nc", "comp")).alias("comp"))
            .localCheckpoint()
        )
        changed = new.join(labels.withColumnRenamed("comp", "old"), "node").where(
            F.col("comp") != F.col("old")
        )
        labels = new
        if changed.limit(1).count() == 0:
            break
    return labels


def story_components_frame(spark: Any, n_nodes: Any, scored: Any, config: Any) -> Any:
    """``(node, comp)`` as :func:`unspin.pipeline.story_components` splits them: components
    of the link edges; those over ``max_component`` again with a stricter link."""
    from pyspark.sql import functions as F

    sp = config.stories
    nodes = n_nodes.select(F.col("idx").alias("node"))
    link = sp.link_sim
    todo_nodes = nodes
    done = None
    depth = 0
    while True:
        edges = scored.where(
            F.col("reuse") | (F.col("quotes") > 0) | (F.col("doc_sim") >= F.lit(link))
        ).select("i", "j")
        inside = todo_nodes.select(F.col("node").alias("i"))
        edges = edges.join(inside, "i").join(inside.withColumnRenamed("i", "j"), "j")
        labels = connected_components(todo_nodes, edges)
        # tag components of this round apart from earlier rounds'
        labels = labels.withColumn(
            "comp", F.concat_ws(".", F.lit(str(depth)), F.col("comp").cast("string"))
        )
        sizes = labels.groupBy("comp").count()
        big = sizes.where(F.col("count") > sp.max_component).select("comp")
        if link >= 1.0:
            big = big.limit(0)
        small = labels.join(big, "comp", "left_anti")
        done = small if done is None else done.unionByName(small)
        if big.limit(1).count() == 0:
            break
        todo_nodes = labels.join(big, "comp").select("node").localCheckpoint()
        # edges of the next round must also stay inside one big component
        scored = (
            scored.join(labels.select(F.col("node").alias("i"), F.col("comp").alias("ci")), "i")
            .join(labels.select(F.col("node").alias("j"), F.col("comp").alias("cj")), "j")
            .where(F.col("ci") == F.col("cj"))
            .drop("ci", "cj")
        )
        link = min(1.0, link + 0.05)
        depth += 1
    return done


def _component(key: Any, docs_pdf: Any, pairs_pdf: Any, config: Any, second_b: Any) -> Any:
    import pandas as pd

    from unspin.pipeline import _FeatureFn, component_result, set_blas_threads

    set_blas_threads(config.blas_threads)
    docs = {
        int(i): _second(pickle.loads(b), int(i), second_b)
        for i, b in zip(docs_pdf["idx"], docs_pdf["doc"])
    }
    qkeys = {int(i): set(q) for i, q in zip(docs_pdf["idx"], docs_pdf["qkeys"])}
    forms = {
        int(i): {int(k): int(v) for k, v in json.loads(f)}
        for i, f in zip(docs_pdf["idx"], docs_pdf["forms"])
    }
    members = sorted(docs)
    base = {
        (int(i), int(j)): json.loads(f)
        for i, j, f in zip(pairs_pdf["i"], pairs_pdf["j"], pairs_pdf["features"])
    }
    reuse = {
        (int(i), int(j)) for i, j, r in zip(pairs_pdf["i"], pairs_pdf["j"], pairs_pdf["reuse"]) if r
    }
    groups, scored = component_result(
        docs,
        members,
        base,
        reuse,
        _FeatureFn(docs, qkeys, config.stories, forms),
        config.stories,
    )
    return pd.DataFrame(
        {
            "groups": [json.dumps(groups)],
            "scored": [json.dumps([[i, j, p, f] for (i, j), (p, f) in scored.items()])],
        }
    )


# ---------------------------------------------------------------- second encoder

#: what the second encoder gives a doc (:mod:`unspin.second`), in this order
SECOND_FIELDS = ("second_lead", "second_vectors", "second_doc_vector", "brief_vector")


def _second(doc: Doc, idx: int, second_b: Any) -> Doc:
    """``doc`` with the second-space vectors the driver's plan gave it (none: as it is)."""
    got = second_b.value.get(idx) if second_b is not None else None
    if got:
        for name, v in zip(SECOND_FIELDS, got):
            setattr(doc, name, v)
    return doc


class _Stub:
    """A doc stand-in on the driver for :func:`unspin.second.plan` and
    :func:`unspin.second.brief_vectors`: what they read of every doc (language, its
    coverage, script and count of content sentences); the docs whose text they read are
    fetched whole (:class:`_DriverDocs`)."""

    def __init__(self, id: str, lang: str, conf: float, cross: Any, n: int, script: str):
        self.id, self.lang, self.lang_confidence, self.cross_lingual = id, lang, conf, cross
        self.n_content = n
        self._script = script  # unspin.normalise.doc_script reads it
        self.second_lead = self.second_vectors = self.second_doc_vector = None
        self.brief_vector = None

    @property
    def content_sentences(self) -> range:  # only its length is read of a stand-in
        return range(self.n_content)


def _doc_rows(it: Iterator[Any]) -> Iterator[tuple]:
    """Per doc, in one pass: its exact-duplicate group key (index, normalised-text hash,
    representative sort key: :func:`_duplicate_members`) and its stand-in's fields
    (:class:`_Stub`), ``((idx, norm_hash, key), (idx, *stub))``."""
    from unspin.candidates import representative_key
    from unspin.normalise import doc_script

    for r in it:
        d: Doc = pickle.loads(r["doc"])
        yield (
            (r["idx"], d.norm_hash, representative_key(d)),
            (
                r["idx"],
                d.id,
                d.lang,
                float(d.lang_confidence),
                d.cross_lingual,
                len(d.content_sentences),
                doc_script(d),
            ),
        )


class _DriverDocs:
    """Every doc of the scan by index, as :class:`_Stub` until :meth:`fetch` puts the
    whole doc (vectors and all) in its place; indexes without a doc (records with an
    input error) hold an undetermined stand-in no stage reads."""

    def __init__(self, docs: Any, rows: list[Any]) -> None:
        n = 1 + max((r[0] for r in rows), default=-1)
        self.items: list[Any] = [_Stub("", "und", 0.0, None, 0, "") for _ in range(n)]
        for idx, *rest in rows:
            self.items[idx] = _Stub(*rest)
        self.frame = docs
        self.whole: set[int] = set()

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> Any:
        return self.items[i]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.items)

    def _collect(self, want: Any, fn: Any) -> list[tuple]:
        sc = self.frame.sparkSession.sparkContext
        keep = sc.broadcast(frozenset(int(i) for i in want))
        try:
            return (
                self.frame.select("idx", "doc")
                .rdd.filter(lambda r: r["idx"] in keep.value)
                .map(lambda r: (r["idx"], fn(r["doc"])))
                .collect()
            )
        finally:
            keep.unpersist()

    def fetch(self, want: Any) -> None:
        missing = sorted(set(int(i) for i in want) - self.whole)
        if not missing:
            return
        for idx, blob in self._collect(missing, lambda b: b):
            self.items[idx] = pickle.loads(blob)  # no second-space vectors yet
            self.whole.add(idx)

    def tokens(self, want: Any) -> dict[int, frozenset[str]]:
        from unspin.second import shared_tokens

        return dict(self._collect(want, lambda b: shared_tokens(pickle.loads(b))))

    def given(self) -> dict[int, tuple]:
        """Index -> the second-space vectors of each whole doc that got any."""
        out = {}
        for i in sorted(self.whole):
            got = tuple(getattr(self.items[i], f) for f in SECOND_FIELDS)
            if any(v is not None for v in got):
                out[i] = got
        return out


def second_stage(
    spark: Any, docs: Any, pairs: Any, members: dict[int, int], config: Any, stubs: list
):
    """The second encoder's plan and brief vectors (:func:`unspin.second.plan`,
    :func:`unspin.second.brief_vectors`) on the driver, as the local pair stage runs
    them: the candidate pairs (a new frame when the plan changed them) and index ->
    second-space vectors for the docs given any (broadcast to the per-pair, per-component
    and changes work). ``stubs``: each doc's stand-in fields (:func:`_doc_rows`). With
    nothing for it to do (no article outside the main encoder
    it covers, no brief beside an English text in ``SecondParams.brief_langs``), the pairs
    as they were and ``{}``, nothing collected but one small row per doc; with briefs
    only, the pairs of an English text and a text in ``brief_langs`` one of which is a
    brief are collected, not all. The e5 model runs on the driver, over the texts of the
    docs it reads only."""
    from unspin.embed import SECOND_BACKENDS
    from unspin.second import active, brief_vectors, plan

    p = config.second
    if not p.embedder:
        return pairs, {}
    held = _DriverDocs(docs, stubs)
    rep = [members.get(i, i) for i in range(len(held))]
    langs = SECOND_BACKENDS[p.embedder].languages
    present = {d.lang for d in held}
    briefs = "en" in present and any(x in present and x in langs for x in p.brief_langs)
    act = active(held, config, rep)
    if not act and not briefs:
        return pairs, {}
    if not act:  # the plan keeps the pairs as they are: only the briefs' pairs are read
        sc = spark.sparkContext
        eng = {i for i, d in enumerate(held) if d.lang == "en"}
        other = {i for i, d in enumerate(held) if d.lang in p.brief_langs and d.lang in langs}
        short = {i for i in eng | other if 1 <= held[i].n_content <= p.brief_sentences}
        sets = sc.broadcast((eng, other, short))

        def brief_pair(r: Any) -> bool:
            e, o, sh = sets.value
            i, j = r["i"], r["j"]
            across = (i in e and j in o) or (i in o and j in e)
            return across and (i in sh or j in sh)

        rows = pairs.select("i", "j").rdd.filter(brief_pair).collect()
        few = sorted((int(r["i"]), int(r["j"])) for r in rows)
        sets.unpersist()
        brief_vectors(held, few, config, None, fetch=held.fetch)
        return pairs, held.given()
    got = sorted((int(r["i"]), int(r["j"])) for r in pairs.select("i", "j").collect())
    planned = plan(held, got, config, rep, None, tokens=held.tokens, fetch=held.fetch)
    brief_vectors(held, planned.pairs, config, None, fetch=held.fetch)
    if planned.pairs != got:
        pairs = spark.createDataFrame(planned.pairs, "i long, j long")
    return pairs, held.given()


# ---------------------------------------------------------------- the scan


def _duplicate_members(rows: list[tuple[int, str, tuple]]) -> dict[int, int]:
    """Member -> representative index of each exact-duplicate group, by the rule of
    :func:`unspin.candidates.representatives`."""
    groups: dict[str, list[tuple[tuple, int]]] = {}
    for idx, h, key in rows:
        groups.setdefault(h, []).append((key, idx))
    out: dict[int, int] = {}
    for g in groups.values():
        if len(g) > 1:
            rep = min(g)[1]
            out.update({idx: rep for _, idx in g if idx != rep})
    return out


#: sentences a driver-side doc keeps for its headline (a text led by a dateline alone or
#: by boilerplate takes its headline from a later sentence: unspin.stories.headline)
LIGHT_SENTENCES = 4


class _Light:
    """A doc stand-in for the driver's story labels (id, article, first sentences)."""

    def __init__(self, doc: Doc) -> None:
        self.article = doc.article
        self.sentences = doc.sentences[:LIGHT_SENTENCES]
        self.id = doc.id
        self.lang = doc.lang
        self.cross_lingual = doc.cross_lingual


def scan(
    input_path: str, out: str, config: Any = None, spark: Any = None, master: str = "local[2]"
) -> Result:
    """Run the pipeline on Spark and write Parquet tables to ``out``; returns the Result
    (its ``docs`` hold only the articles that carry quotations, without vectors)."""
    from pyspark.sql import functions as F

    from unspin.embed import get_embedder
    from unspin.pipeline import Config, add_members, config_record, story_relations
    from unspin.stories import make_stories

    config = config or Config()
    own = spark is None
    spark = spark or session(master, blas_threads=config.blas_threads)
    sc = spark.sparkContext
    try:
        rdd, cols = read_articles(spark, input_path)
        fp = config.fingerprint
        label = str(input_path)
        name = config.embedder
        prepared = rdd.mapPartitions(lambda it: _articles_to_docs(it, cols, fp, label, name)).toDF(
            "idx long, id string, doc binary, error binary"
        )
        prepared = prepared.cache()
        bad = prepared.where("error IS NOT NULL").select("idx", "error").collect()
        errors = [e for r in sorted(bad, key=lambda r: r["idx"]) for e in pickle.loads(r["error"])]
        for e in errors:
            e.input = str(input_path)
        raw = prepared.where("doc IS NOT NULL").select("idx", "doc")
        # ids repeated in the input get id~N in input order, as the local reader gives them
        seen = prepared.where("doc IS NOT NULL").select("idx", "id").collect()
        renames, warned = _renamed_ids(sorted((r["idx"], r["id"]) for r in seen), label)
        errors += warned
        if renames:
            names_b = sc.broadcast(renames)
            raw = raw.rdd.mapPartitions(lambda it: _rename_rows(it, names_b)).toDF(
                "idx long, doc binary"
            )
        # distinct sentences, embedded once each (Arrow batches)
        sents = raw.rdd.mapPartitions(_encoder_rows).toDF("idx long, key string, text string")
        distinct = sents.groupBy("key").agg(F.first("text").alias("text"))
        vectors = distinct.mapInPandas(lambda b: _embed_batches(b, name), "key string, vec binary")
        dim = get_embedder(name).dim
        keyed = (
            sents.select("idx", "key")
            .join(vectors, "key")
            .groupBy("idx")
            .agg(F.collect_list("key").alias("keys"), F.collect_list("vec").alias("vecs"))
        )
        docs = (
            raw.join(keyed, "idx", "left")
            .rdd.mapPartitions(lambda it: _with_vectors(it, dim))
            .toDF("idx long, doc binary")
            .cache()
        )
        docs.count()
        locs = docs.rdd.mapPartitions(lambda it: _locals((r["idx"], r["doc"]) for r in it)).toDF(
            "idx long, loc binary, names array<string>, capitals array<string>, "
            "lower array<string>, words array<string>, bigrams array<long>, lines array<long>, "
            "fills array<long>, fill_frames array<long>"
        )
        locs = locs.cache()
        stats_b = sc.broadcast(corpus_stats(locs))
        # exact-duplicate groups: the representative alone in the candidate search and
        # the stories, each other member paired with it (unspin.candidates.representatives)
        # one pass over the docs: exact-duplicate keys, and stand-ins for the second stage
        per_doc = docs.rdd.mapPartitions(_doc_rows).collect()
        members = _duplicate_members([k for k, _ in per_doc])
        mem = spark.createDataFrame([(m,) for m in members], "idx long")
        reps = docs.join(mem, "idx", "left_anti") if members else docs
        pairs = candidate_frame(spark, reps, config)
        if members:
            star = [(min(m, r), max(m, r)) for m, r in sorted(members.items())]
            pairs = pairs.unionByName(spark.createDataFrame(star, "i long, j long")).distinct()
        pairs, given = second_stage(spark, docs, pairs, members, config, [x for _, x in per_doc])
        del per_doc
        second_b = sc.broadcast(given) if given else None
        qk = (
            docs.rdd.mapPartitions(
                lambda it: _doc_columns(
                    ((r["idx"], r["doc"]) for r in it), config.candidates.quote_min_words
                )
            )
            .map(lambda t: (t[0], t[5]))
            .toDF("idx long, qkeys array<string>")
        )
        ap = config.align

        def form_rows(it: Iterator[Any]) -> Iterator[tuple]:
            from unspin.corpus import form_lines_of

            for r in it:
                got = form_lines_of(
                    pickle.loads(r["loc"]), stats_b.value, ap.form_min_fills, ap.form_share
                )
                yield (r["idx"], json.dumps(sorted(got.items())))

        fm = locs.select("idx", "loc").rdd.mapPartitions(form_rows).toDF("idx long, forms string")
        side = docs.join(locs.select("idx", "loc"), "idx").join(qk, "idx").join(fm, "idx").cache()

        def named(s: str) -> Any:
            return side.select(
                F.col("idx").alias(s),
                F.col("doc").alias(f"d{s[0]}"),
                F.col("loc").alias(f"l{s[0]}"),
                F.col("qkeys").alias(f"q{s[0]}"),
            )

        joined = pairs.join(
            named("i")
            .withColumnRenamed("di", "da")
            .withColumnRenamed("li", "la")
            .withColumnRenamed("qi", "qa"),
            "i",
        )
        joined = joined.join(
            named("j")
            .withColumnRenamed("dj", "db")
            .withColumnRenamed("lj", "lb")
            .withColumnRenamed("qj", "qb"),
            "j",
        )
        scored = (
            joined.rdd.mapPartitions(lambda it: _pair_rows(it, stats_b, config, second_b))
            .toDF("i long, j long, rel binary, features string")
            .cache()
        )
        fcol = F.from_json("features", "doc_sim double, quotes double")
        flat = scored.select(
            "i",
            "j",
            F.col("rel").isNotNull().alias("reuse"),
            fcol["doc_sim"].alias("doc_sim"),
            fcol["quotes"].alias("quotes"),
        )
        if members:
            flat = flat.join(mem.withColumnRenamed("idx", "i"), "i", "left_anti").join(
                mem.withColumnRenamed("idx", "j"), "j", "left_anti"
            )
        comps = story_components_frame(spark, reps.select("idx"), flat, config).cache()
        cdocs = side.select("idx", "doc", "qkeys", "forms").join(
            comps.select(F.col("node").alias("idx"), "comp"), "idx"
        )
        cpairs = (
            scored.select("i", "j", F.col("rel").isNotNull().alias("reuse"), "features")
            .join(comps.select(F.col("node").alias("i"), F.col("comp").alias("ci")), "i")
            .join(comps.select(F.col("node").alias("j"), F.col("comp").alias("comp")), "j")
            .where(F.col("ci") == F.col("comp"))
            .drop("ci")
        )
        results = (
            cdocs.groupBy("comp")
            .cogroup(cpairs.groupBy("comp"))
            .applyInPandas(
                lambda k, a, b: _component(k, a, b, config, second_b),
                "groups string, scored string",
            )
            .collect()
        )
        # driver: story numbering, relations (compact records only)
        groups: list[list[int]] = []
        story_scores: dict[tuple[int, int], tuple[float, dict]] = {}
        for r in results:
            groups.extend(json.loads(r["groups"]))
            for i, j, p, f in json.loads(r["scored"]):
                story_scores[(i, j)] = (p, f)
        groups = add_members(groups, members)
        groups.sort(key=lambda g: g[0])
        story_of = {i: g for g in range(len(groups)) for i in groups[g]}
        reuse: dict[tuple[int, int], Relation] = {}
        all_pairs = []
        for r in scored.select("i", "j", "rel").collect():
            all_pairs.append((r["i"], r["j"]))
            if r["rel"] is not None:
                reuse[(r["i"], r["j"])] = pickle.loads(r["rel"])
        all_pairs.sort()
        light = {
            r["idx"]: _Light(pickle.loads(r["doc"])) for r in docs.select("idx", "doc").collect()
        }
        # the local analysis's warnings: languages neither encoder matched, cut articles
        from unspin.embed import BACKENDS
        from unspin.fingerprint import cut_warnings, language_warnings

        reached = frozenset(light[i].lang for i, v in given.items() if v[0] is not None)
        main_langs = getattr(BACKENDS[config.embedder], "languages", None)
        ordered = [light[i] for i in sorted(light)]
        fp = config.fingerprint
        cuts = docs.rdd.flatMap(
            lambda r: [(r["idx"], e) for e in cut_warnings([pickle.loads(r["doc"])], fp)]
        ).collect()
        errors = errors + language_warnings(ordered, main_langs, reached or None)
        errors += [e for _, e in sorted(cuts, key=lambda x: x[0])]
        relations = list(reuse.values()) + story_relations(
            light, all_pairs, reuse, story_scores, story_of, config.stories
        )
        relations.sort(key=lambda r: (r.a, r.b))
        stories = make_stories(light, groups, relations, story_scores)
        result = _provenance(spark, side, light, relations, stories, errors, second_b)
        result.config = config_record(config)
        write(spark, result, out, docs)
        return result
    finally:
        if own:
            spark.stop()


def _provenance(spark, side, light, relations, stories, errors, second_b=None) -> Result:
    """Changes per reuse relation on the executors; quotation groups and lineage on the
    driver over the docs that carry quotations."""
    from unspin.model import REUSE_RELATIONS
    from unspin.pipeline import changes_work
    from unspin.quotes import quote_groups

    reuse = [r for r in relations if r.relation in REUSE_RELATIONS]
    ids = {d.id: i for i, d in light.items()}
    need = sorted({ids[x] for r in reuse for x in (r.a, r.b)})
    sc = spark.sparkContext
    rel_b = sc.broadcast(reuse)
    by_doc = side.select("idx", "doc").where(side.idx.isin(need)) if need else None

    changes = []
    if by_doc is not None:
        # pairs meet their docs by a join on each side, then one task per relation
        from pyspark.sql import Row

        rels = spark.createDataFrame(
            [Row(k=k, a=ids[r.a], b=ids[r.b]) for k, r in enumerate(reuse)]
        )
        d = by_doc
        j = rels.join(d.withColumnRenamed("idx", "a").withColumnRenamed("doc", "da"), "a").join(
            d.withColumnRenamed("idx", "b").withColumnRenamed("doc", "db"), "b"
        )

        def run(it: Iterator[Any]) -> Iterator[tuple]:
            for r in it:
                da = _second(pickle.loads(r["da"]), r["a"], second_b)
                db = _second(pickle.loads(r["db"]), r["b"], second_b)
                rel = rel_b.value[r["k"]]
                yield (r["k"], _dumps(changes_work({da.id: da, db.id: db}, rel)))

        got = dict(j.rdd.mapPartitions(run).collect())
        for k in range(len(reuse)):
            changes.extend(pickle.loads(got[k]))
    carriers = [
        pickle.loads(r["doc"])
        for r in side.select("doc").collect()
        if pickle.loads(r["doc"]).quotes
    ]
    for doc in carriers:
        doc.sentence_vectors = None
    order = {d.id: i for i, d in light.items()}
    carriers.sort(key=lambda d: order[d.id])
    derived = frozenset(r.derivative for r in relations if r.derivative)
    result = Result(docs=carriers, relations=relations, stories=stories, errors=errors)
    result.quotes = quote_groups(carriers, derived=derived)
    result.lineage = _lineage(result, light)
    result.changes = changes
    return result


def _lineage(result: Result, light: dict) -> list:
    from unspin.lineage import build_lineage

    docs = {d.id: d for d in result.docs}
    for d in light.values():
        docs.setdefault(d.id, d)
    view = Result(
        docs=list(docs.values()), relations=result.relations, stories=result.stories, errors=[]
    )
    return build_lineage(view, result.quotes)


def write(spark: Any, result: Result, out: str, docs: Any) -> None:
    """Parquet tables (nested fields as JSON strings, as the local engine writes them)."""
    from unspin.model import SCHEMA_VERSION
    from unspin.output import records

    remote = "://" in str(out)  # hdfs://, s3a://: Spark writes there, not the driver
    out_p = Path(out)
    if not remote:
        out_p.mkdir(parents=True, exist_ok=True)
    tables = records(result)

    def articles(it: Iterator[Any]) -> Iterator[tuple]:
        from unspin.model import Result as R

        for r in it:
            d = pickle.loads(r["doc"])
            rec = R(docs=[d], relations=[], stories=[], errors=[]).article_records()[0]
            yield (r["idx"], json.dumps(rec))

    story_of = {a: s.id for s in result.stories for a in s.articles}
    got = sorted(docs.select("idx", "doc").rdd.mapPartitions(articles).collect())
    art_rows = [json.loads(x) for _, x in got]
    for row in art_rows:
        row["story"] = story_of.get(row["id"])
    tables["articles"] = art_rows
    for name, rows in tables.items():
        flat = [
            {
                k: json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v
                for k, v in row.items()
            }
            for row in rows
        ]
        path = f"{str(out).rstrip('/')}/{name}.parquet"
        if flat:
            import pandas as pd

            spark.createDataFrame(pd.DataFrame(flat)).write.mode("overwrite").parquet(path)
        else:
            spark.createDataFrame([], "empty string").write.mode("overwrite").parquet(path)
    meta = {"schema_version": SCHEMA_VERSION, "counts": {k: len(v) for k, v in tables.items()}}
    if remote:
        spark.createDataFrame([(json.dumps(meta),)], "manifest string").coalesce(1).write.mode(
            "overwrite"
        ).text(f"{str(out).rstrip('/')}/manifest.json")
    else:
        (out_p / "manifest.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
