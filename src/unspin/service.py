"""The web service: ``unspin serve --store PATH`` (FastAPI on uvicorn) over the same
results folder and store as the CLI, built on the library API only (``unspin.scan``,
``unspin.add``, ``unspin.remove``, ``unspin.compare``, ``output.read_tables``).

Concurrency: one writer thread applies every write (adds and removes) in order; adds that
queue up while it works are applied together in one ``unspin.add`` call (group commit),
each request still answered with its own articles' relations. After each write the
service reads the results back into a new immutable snapshot and swaps it in whole, so
readers, which never wait for writers, see either none or all of a batch.

Safety: writes need the bearer token (compared in constant time), reads too unless
``public_read``; the browser pages use a cookie set by the login form (SameSite=Strict,
HttpOnly) and check the Origin of posts. No request path or field reaches the file
system: ids are data, uploads are written under names the service makes in a private
temporary folder, and the store path is fixed at start-up. Body size and batch size are
limited; errors are JSON ``{"status", "error", "message"}`` with the right 4xx status.
"""

import contextlib
import hashlib
import hmac
import json
import logging
import os
import queue
import re
import secrets
import sqlite3
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from unspin.api import collector_paused, preload
from unspin.ingest import HTML_EXTS, RECORD_EXTS, TEXT_EXTS, IngestOptions, read_paths
from unspin.model import RELATIONS, Article, InputError
from unspin.output import LineMemo
from unspin.pipeline import Config
from unspin.report import (
    ReportData,
    csp,
    filter_stories,
    relation_records,
    render_page,
    stored_articles,
    story_summary,
)
from unspin.store import keep_memo_values

log = logging.getLogger("unspin.service")

#: default limits (each one a ``serve`` option)
MAX_BODY_BYTES = 32 * 1024 * 1024
MAX_BATCH = 1000
MAX_FILES = 100
#: adds applied together in one engine call at most (group commit)
MAX_GROUP_ARTICLES = 2000
#: list endpoints: default and largest page
PAGE, MAX_PAGE = 100, 1000
#: longest article id accepted from a request
MAX_ID_CHARS = 300
#: input errors of recent uploads kept for the errors page
RECENT_ERRORS = 500
SESSION_COOKIE = "unspin_session"
#: an uploaded file keeps its extension only if it is one ``scan`` reads (else none)
UPLOAD_EXTS = TEXT_EXTS + HTML_EXTS + RECORD_EXTS
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class ApiError(Exception):
    """An error answered as JSON (or as an HTML page on the browser pages)."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


@dataclass
class Settings:
    """What ``unspin serve`` was started with."""

    store: Path
    token: str
    public_read: bool = False
    cors_origins: tuple[str, ...] = ()
    max_body_bytes: int = MAX_BODY_BYTES
    max_batch: int = MAX_BATCH
    max_files: int = MAX_FILES
    config: Config = field(default_factory=Config)
    ingest: IngestOptions = field(default_factory=IngestOptions)
    #: the writer's first job recomputes the stored pile's results once (an add of no
    #: article: the same tables), so what every add reads back (stored pair, article and
    #: component results, the rows of the tables) is in the process before the first
    #: request's add (at 20,000 articles: 5.3-5.6 s against 5.9-6.3 without it; the adds
    #: after it 3.3-4.1 s; docs/benchmarks.md, session 54). Reads are served meanwhile;
    #: a write waits behind it.
    warm_add: bool = True

    def __post_init__(self) -> None:
        self.store = Path(self.store)
        if not self.token:
            raise ValueError("a token is required (writes are never open)")
        for name in ("max_body_bytes", "max_batch", "max_files"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")


# ------------------------------------------------------------------ the store side


@dataclass
class Snapshot:
    """One consistent generation of the results, as readers see it."""

    data: ReportData
    articles: dict[str, Article]
    first_seen: dict[tuple[str, str, str], float]
    generation: int
    made_at: float


@dataclass
class Job:
    kind: str  # "add" | "remove" | "warm" (:attr:`Settings.warm_add`)
    articles: list[Article] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    future: Future = field(default_factory=Future)


@dataclass
class AddOutcome:
    snapshot: Snapshot
    ids: list[str]
    replaced: list[str]
    seconds: float


class Service:
    """The store, its current snapshot and the one writer thread."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.out = settings.store
        self._lock = threading.Lock()  # held by whoever writes or rebuilds the snapshot
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.recent_errors: deque[dict[str, Any]] = deque(maxlen=RECENT_ERRORS)
        self._ensure_store()
        self._seen_db = self.out / ".unspin" / "service.sqlite"
        self._first_seen = self._load_first_seen()
        self._articles = stored_articles(self.out)
        self._generation = 0
        self._signature: tuple[int, int] | None = None
        self._lines = LineMemo()  # each snapshot parses only the lines new since the last
        # every add reads back the stored results of most of the pile's pairs, articles
        # and components: kept in this process once read (unspin.store.keep_memo_values)
        keep_memo_values(True)
        self.snapshot = self._build()

    # -------------------------------------------------------------- set-up

    def _ensure_store(self) -> None:
        """Create an empty results folder and store at ``out`` if there is none."""
        import unspin
        from unspin.output import own_entry

        out = self.out
        if (out / "manifest.json").is_file():
            return
        if out.exists() and not out.is_dir():
            raise ValueError(f"store path {out} exists and is not a folder")
        if out.is_dir() and not all(own_entry(p.name) for p in out.iterdir()):
            raise ValueError(
                f"{out} is not an unspin results folder (no manifest.json) and not empty: "
                "give an empty or new folder, or one written by `unspin scan --out`"
            )
        if (out / ".unspin" / "store.sqlite").is_file() and self._store_has_articles():
            raise ValueError(
                f"{out} holds a store with articles but no results (an interrupted scan?): "
                f"recompute them with `unspin add FILE --out {out}` (any article) first"
            )
        unspin.scan([], out=out, config=self.settings.config)
        log.info("created an empty store in %s", out)

    def _load_first_seen(self) -> dict[tuple[str, str, str], float]:
        with contextlib.closing(sqlite3.connect(self._seen_db)) as con, con:
            con.execute(
                "CREATE TABLE IF NOT EXISTS first_seen (a TEXT, b TEXT, relation TEXT, "
                "at REAL, PRIMARY KEY (a, b, relation))"
            )
            rows = con.execute("SELECT a, b, relation, at FROM first_seen").fetchall()
        return {(a, b, r): at for a, b, r, at in rows}

    def _save_first_seen(
        self, new: dict[tuple[str, str, str], float], gone: Iterable[tuple[str, str, str]]
    ) -> None:
        with contextlib.closing(sqlite3.connect(self._seen_db)) as con, con:
            con.executemany("DELETE FROM first_seen WHERE a=? AND b=? AND relation=?", list(gone))
            con.executemany(
                "INSERT OR REPLACE INTO first_seen VALUES (?, ?, ?, ?)",
                [(*k, at) for k, at in new.items()],
            )

    def _manifest_signature(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.out / "manifest.json")
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def _build(self) -> Snapshot:
        """Read the results back (``read_tables``) into a new snapshot; caller holds the
        lock (or is the constructor)."""
        from unspin.output import read_tables

        signature = self._manifest_signature()
        with collector_paused():  # many small objects made: no collection walks them all
            tables = read_tables(self.out, self._lines)
            articles = dict(self._articles)
            last = getattr(self, "snapshot", None)  # none yet while the constructor builds it
            data = ReportData(
                tables,
                {k: a.text for k, a in articles.items()},
                last.data if last is not None else None,
            )
        now = time.time()
        keys = {(r["a"], r["b"], r["relation"]) for r in data.relations}
        new = {k: now for k in keys if k not in self._first_seen}
        gone = [k for k in self._first_seen if k not in keys]
        if new or gone:
            self._save_first_seen(new, gone)
            for k in gone:
                del self._first_seen[k]
            self._first_seen.update(new)
        self._generation += 1
        self._signature = signature
        return Snapshot(data, articles, dict(self._first_seen), self._generation, now)

    def current(self) -> Snapshot:
        """The snapshot to read from; picks up results written by another process (the
        CLI) when the manifest changed and no write of ours is under way."""
        if self._manifest_signature() != self._signature and self._lock.acquire(blocking=False):
            try:
                if self._manifest_signature() != self._signature:
                    self._articles = stored_articles(self.out)
                    self.snapshot = self._build()
            finally:
                self._lock.release()
        return self.snapshot

    def warm_up(self) -> None:
        """Load the models (embedder, NER) before the first request needs them, by
        comparing two tiny texts, read the store's articles and docs as an add does
        (:func:`unspin.api.preload`) and load the Parquet writer; a failure is logged,
        not fatal (the write will say)."""
        import unspin

        a = "Mayor Anna Berg said the new bridge over the river would open in June."
        b = "Mayor Anna Borg said the new bridge over the river would open in July."
        try:
            unspin.compare(Article("warm-a", a), Article("warm-b", b), self.settings.config)
            # the stored articles and docs, which every add reads (built once here)
            preload(self.out, self.settings.config)
            with contextlib.suppress(ImportError):  # the Parquet copies' writer, if any
                import pyarrow as pa

                pa.Table.from_pylist([{"warm": 1}])  # its first use imports more
        except Exception:  # noqa: BLE001
            log.exception("warm-up failed")

    # -------------------------------------------------------------- the writer

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="unspin-writer", daemon=True)
            self._thread.start()
            if self.settings.warm_add and self._articles:
                self._queue.put(Job("warm"))

    def stop(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None

    def submit(self, job: Job) -> Future:
        if self._thread is None:
            raise ApiError(503, "the service is not accepting writes (shutting down)")
        self._queue.put(job)
        return job.future

    def _run(self) -> None:
        carry: Job | None = None
        while True:
            job = carry if carry is not None else self._queue.get()
            carry = None
            if job is None:
                return
            if job.kind == "warm":
                self._warm(job)
                continue
            group = [job]
            if job.kind == "add":
                n = len(job.articles)
                while n < MAX_GROUP_ARTICLES:
                    try:
                        nxt = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if nxt is None or nxt.kind != "add":
                        carry = nxt if nxt is not None else None
                        if nxt is None:
                            self._queue.put(None)
                        break
                    group.append(nxt)
                    n += len(nxt.articles)
            try:
                if job.kind == "add":
                    self._apply_adds(group)
                else:
                    self._apply_remove(job)
            except BaseException as e:  # noqa: BLE001 - hand every failure to its request
                for j in group:
                    if not j.future.done():
                        j.future.set_exception(e)

    def _warm(self, job: Job) -> None:
        """The writer's first job (:attr:`Settings.warm_add`): an add of no article; a
        failure is logged, not fatal (the next add recomputes and says)."""
        t0 = time.perf_counter()
        try:
            self._add([])
            log.info("warm add of the stored pile: %.1f s", time.perf_counter() - t0)
        except Exception:  # noqa: BLE001
            log.exception("warm add failed")
        job.future.set_result(None)

    def _apply_adds(self, group: list[Job]) -> None:
        """Apply a group of adds in one engine call; if it fails, apply them one by one
        so one request's articles cannot fail the others'."""
        try:
            snap, before, took = self._add([a for j in group for a in j.articles])
        except Exception:
            if len(group) == 1:
                raise
            for j in group:
                try:
                    self._apply_adds([j])
                except Exception as e:  # noqa: BLE001
                    j.future.set_exception(e)
            return
        for j in group:
            ids = list(dict.fromkeys(a.id for a in j.articles))
            j.future.set_result(AddOutcome(snap, ids, [i for i in ids if i in before], took))

    def _add(self, articles: list[Article]) -> tuple[Snapshot, set[str], float]:
        import unspin

        t0 = time.perf_counter()
        by_id: dict[str, Article] = {}
        for a in articles:
            by_id.pop(a.id, None)  # a later request's text wins, in request order
            by_id[a.id] = a
        with self._lock:
            before = set(self._articles)
            items = list(by_id.values())
            if not before and not self._store_has_articles():
                unspin.scan(items, out=self.out, config=self.settings.config)
            else:
                unspin.add(items, out=self.out, config=self.settings.config)
            self._articles.update(by_id)
            snap = self.snapshot = self._build()
        return snap, before, time.perf_counter() - t0

    def _store_has_articles(self) -> bool:
        from unspin.store import STORE_DIRNAME, Store

        with Store(self.out / STORE_DIRNAME) as st:
            return st.stats()["articles"] > 0

    def _apply_remove(self, job: Job) -> None:
        import unspin

        with self._lock:
            missing = [i for i in job.ids if i not in self._articles]
            if missing:
                raise ApiError(404, f"no article with id {missing[0]!r} in the store")
            unspin.remove(job.ids, out=self.out, config=self.settings.config)
            for i in job.ids:
                self._articles.pop(i, None)
            snap = self.snapshot = self._build()
        job.future.set_result(snap)

    # -------------------------------------------------------------- requests

    def add_articles(self, articles: list[Article]) -> AddOutcome:
        if len(articles) > self.settings.max_batch:
            raise ApiError(
                413,
                f"batch of {len(articles)} articles is over the limit of "
                f"{self.settings.max_batch} per request",
            )
        return self.submit(Job("add", articles=articles)).result()

    def remove_articles(self, ids: list[str]) -> Snapshot:
        return self.submit(Job("remove", ids=ids)).result()

    def note_errors(self, errors: Sequence[InputError]) -> None:
        at = datetime.now(UTC).isoformat(timespec="seconds")
        for e in errors:
            self.recent_errors.append({**e.to_record(), "at": at})


# ------------------------------------------------------------------ reading uploads


def _client_name(name: str | None) -> str:
    """A file name given by a client, reduced to a label: its last path part, no control
    characters, bounded length. Used for ids and messages, never for a path."""
    base = PurePosixPath(PureWindowsPath(name or "").name).name
    base = _CONTROL.sub("", base).strip()[:200]
    return base or "upload"


def _ext(name: str) -> str:
    """The reader's extension for an uploaded name ('.jsonl', '.txt.gz', ...) or ''."""
    lower = name.lower()
    gz = lower.endswith(".gz")
    stem = lower[:-3] if gz else lower
    ext = os.path.splitext(stem)[1]
    if ext not in UPLOAD_EXTS:
        return ".gz" if gz else ""
    return ext + (".gz" if gz else "")


def _stem(name: str) -> str:
    base = name[:-3] if name.lower().endswith(".gz") else name
    stem = os.path.splitext(base)[0] if _ext(name) else base
    return stem or "upload"


def read_uploads(
    files: Sequence[tuple[str | None, bytes]],
    records: Sequence[dict[str, Any]],
    options: IngestOptions,
) -> tuple[list[Article], list[InputError]]:
    """Articles from uploaded files (``(client name, bytes)``) and JSON records, read by
    the same readers as ``scan`` from a private temporary folder under names made here.

    Ids come out as ``scan`` would give them for a file of the client's name (the file
    name's stem, ``stem:N`` for records without an id); ``input`` is ``upload:<name>``
    or ``request``. Ids repeated within one request get ``~2``, ``~3``.
    """
    articles: list[Article] = []
    errors: list[InputError] = []
    with tempfile.TemporaryDirectory(prefix="unspin-upload-") as tmp:
        labels: dict[str, tuple[str, str]] = {}  # temp path -> (input label, client stem)
        paths = []
        for n, (name, raw) in enumerate(files):
            client = _client_name(name)
            path = Path(tmp, f"u{n}{_ext(client)}")
            path.write_bytes(raw)
            labels[str(path)] = (f"upload:{client}", _stem(client))
            paths.append(path)
        if records:
            path = Path(tmp, "request.jsonl")
            with path.open("w", encoding="utf-8") as fh:
                for r in records:
                    fh.write(json.dumps(r, ensure_ascii=False) + "\n")
            labels[str(path)] = ("request", "request")
            paths.append(path)
        found, errs = read_paths(paths, options)
        for e in errs:
            label, _ = labels.get(e.input, ("upload", ""))
            errors.append(InputError(label, e.location, e.reason, e.severity))
        seen: dict[str, int] = {}
        for a in found:
            label, client_stem = labels.get(a.input, ("upload", "upload"))
            server_stem = Path(a.input).name.split(".", 1)[0]
            base = a.id.split("~", 1)[0] if a.id.startswith(server_stem) else a.id
            if base == server_stem:
                a.id = client_stem
            elif base.startswith(server_stem + ":"):
                a.id = client_stem + base[len(server_stem) :]
            a.input = label
            if a.id in seen:
                seen[a.id] += 1
                old, a.id = a.id, f"{a.id}~{seen[a.id]}"
                errors.append(
                    InputError(
                        label, a.location, f"duplicate id {old!r}: renamed to {a.id!r}", "warning"
                    )
                )
            else:
                seen[a.id] = 1
            articles.append(a)
    return articles, errors


def article_record(a: dict[str, Any]) -> dict[str, Any]:
    """An incoming JSON article as an input record (a content-derived id if none)."""
    rec = {k: v for k, v in a.items() if v is not None}
    if not rec.get("id"):
        rec["id"] = "post-" + hashlib.sha1(a["text"].encode("utf-8", "replace")).hexdigest()[:12]
    return rec


# ------------------------------------------------------------------ auth


def _digest(value: str) -> bytes:
    return hashlib.sha256(value.encode("utf-8", "replace")).digest()


def token_ok(given: str | None, token: str) -> bool:
    """Constant-time comparison (of digests, so not even the length leaks)."""
    return given is not None and hmac.compare_digest(_digest(given), _digest(token))


def session_value(token: str) -> str:
    """The login cookie's value: derived from the token, so a new token logs all out."""
    return hmac.new(token.encode(), b"unspin ui session", hashlib.sha256).hexdigest()


# ------------------------------------------------------------------ the app


def create_app(settings: Settings) -> Any:
    """The FastAPI application over ``settings.store``."""
    service = Service(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        import anyio.to_thread

        # readers must not queue behind requests that wait for the writer
        anyio.to_thread.current_default_thread_limiter().total_tokens = 100
        await run_in_threadpool(service.warm_up)
        service.start()
        try:
            yield
        finally:
            await run_in_threadpool(service.stop)

    app = FastAPI(
        title="unspin",
        version=_version(),
        summary="Trace news copies, spins and translations back to their source.",
        description=(
            "Post articles; read their relations (with aligned passages and changes), "
            "stories, lineage and quotation groups. Writes need `Authorization: Bearer "
            "TOKEN`; reads too unless the server runs with `--public-read`."
        ),
        docs_url=None,  # the interactive docs load scripts from a CDN: not offline
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.service = service
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type"],
        )
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)

    # -------------------------------------------------------------- errors

    def is_page(request: Request) -> bool:
        return request.url.path == "/" or request.url.path.startswith("/ui")

    def error_response(request: Request, status: int, message: str, **extra: Any) -> Response:
        if is_page(request):
            html = render_page(
                "page.html.j2",
                service.snapshot.data,
                view="message",
                title=f"{status}",
                message=message,
                can_write=False,
                logged_in=False,
                status=status,
            )
            return page_response(html, status)
        body = {"status": status, "error": _reason(status), "message": message, **extra}
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return JSONResponse(body, status_code=status, headers=headers)

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> Response:
        return error_response(request, exc.status, exc.message, **exc.extra)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        message = exc.detail if isinstance(exc.detail, str) else _reason(exc.status_code)
        if exc.status_code == 404 and message == "Not Found":
            message = f"no such endpoint: {request.method} {request.url.path}"
        if exc.status_code == 405:
            message = f"method {request.method} is not allowed on {request.url.path}"
        return error_response(request, exc.status_code, message)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        details = [_detail(e) for e in exc.errors()]
        return error_response(request, 422, "; ".join(details), details=details)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected failure on %s %s", request.method, request.url.path)
        return error_response(request, 500, f"unexpected failure: {type(exc).__name__}")

    @app.middleware("http")
    async def headers(request: Request, call_next: Callable) -> Response:
        response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("Cache-Control", "no-store")
        return response

    # -------------------------------------------------------------- auth

    def bearer(request: Request) -> str | None:
        scheme, _, cred = request.headers.get("authorization", "").partition(" ")
        return cred.strip() if scheme.lower() == "bearer" and cred.strip() else None

    def can_read(request: Request) -> bool:
        return settings.public_read or can_write(request)

    def can_write(request: Request) -> bool:
        if token_ok(bearer(request), settings.token):
            return True
        cookie = request.cookies.get(SESSION_COOKIE)
        return cookie is not None and hmac.compare_digest(
            cookie.encode("utf-8", "replace"), session_value(settings.token).encode()
        )

    def need_read(request: Request) -> None:
        if not settings.public_read and not token_ok(bearer(request), settings.token):
            raise ApiError(401, "reading needs a bearer token (Authorization: Bearer TOKEN)")

    def need_write(request: Request) -> None:
        if not token_ok(bearer(request), settings.token):
            raise ApiError(401, "writing needs a bearer token (Authorization: Bearer TOKEN)")

    def same_origin(request: Request) -> None:
        """Browser posts must come from our own pages (with the SameSite cookie, this
        stops cross-site form posts)."""
        origin = request.headers.get("origin") or request.headers.get("referer")
        if origin and origin != "null":
            from urllib.parse import urlsplit

            if urlsplit(origin).netloc != request.headers.get("host", ""):
                raise ApiError(403, "cross-site request refused")

    # -------------------------------------------------------------- models

    class ArticleIn(BaseModel):
        """One article. Only ``text`` is required; without an ``id`` one is made from
        the text (posting the same text again replaces it)."""

        model_config = ConfigDict(extra="forbid")
        id: str | None = Field(None, min_length=1, max_length=MAX_ID_CHARS)
        text: str = Field(min_length=1)
        title: str | None = None
        url: str | None = None
        outlet: str | None = None
        published_at: str | None = Field(None, description="ISO 8601")
        lang: str | None = None

    class ArticleBatch(BaseModel):
        model_config = ConfigDict(extra="forbid")
        articles: list[ArticleIn]

    def parse_json_articles(raw: bytes) -> list[dict[str, Any]]:
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError) as e:
            raise ApiError(400, f"request body is not valid JSON: {e}") from None
        try:
            if isinstance(value, list):
                items = [ArticleIn.model_validate(v) for v in value]
            elif isinstance(value, dict) and "articles" in value:
                items = ArticleBatch.model_validate(value).articles
            else:
                items = [ArticleIn.model_validate(value)]
        except ValidationError as e:
            details = [_detail(x) for x in e.errors()]
            raise ApiError(422, "; ".join(details), details=details) from None
        if len(items) > settings.max_batch:
            raise ApiError(
                413,
                f"batch of {len(items)} articles is over the limit of "
                f"{settings.max_batch} per request",
            )
        return [article_record(i.model_dump()) for i in items]

    async def read_form(request: Request) -> tuple[list[tuple[str, bytes]], dict[str, str]]:
        try:
            form = await request.form(
                max_files=settings.max_files,
                max_fields=50,
                max_part_size=settings.max_body_bytes,
            )
        except BodyTooLarge:
            raise
        except Exception as e:  # noqa: BLE001 - python-multipart's and Starlette's errors
            raise ApiError(400, f"cannot read the form: {getattr(e, 'detail', e)}") from None
        files: list[tuple[str, bytes]] = []
        fields: dict[str, str] = {}
        for key, value in form.multi_items():
            if isinstance(value, str):
                fields[key] = value
            else:
                data = await value.read()
                if data:
                    files.append((value.filename or "upload", data))
        await form.close()
        return files, fields

    def pasted(fields: dict[str, str]) -> list[dict[str, Any]]:
        text = fields.get("text", "")
        if not text.strip():
            return []
        rec: dict[str, Any] = {"text": text}
        for k in ("id", "title", "outlet", "url", "published_at", "lang"):
            v = (fields.get(k) or "").strip()
            if v:
                rec[k] = v[:MAX_ID_CHARS] if k == "id" else v
        return [article_record(rec)]

    async def ingest_request(request: Request) -> tuple[list[Article], list[InputError]]:
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype == "application/json" or ctype.endswith("+json"):
            files, records = [], parse_json_articles(await request.body())
        elif ctype == "multipart/form-data":
            files, fields = await read_form(request)
            records = pasted(fields)
            if len(files) > settings.max_files:
                raise ApiError(413, f"{len(files)} files: the limit is {settings.max_files}")
        else:
            raise ApiError(
                415,
                f"unsupported content type {ctype or '(none)'!r}: send application/json "
                "or multipart/form-data",
            )
        if not files and not records:
            raise ApiError(422, "no article in the request (send text or files)")
        return await run_in_threadpool(read_uploads, files, records, settings.ingest)

    def write(articles: list[Article], errors: list[InputError]) -> AddOutcome:
        service.note_errors(errors)
        if not articles:
            raise ApiError(
                422,
                "no article could be read from the request",
                errors=[e.to_record() for e in errors],
            )
        return service.add_articles(articles)

    def added_body(outcome: AddOutcome, errors: list[InputError]) -> dict[str, Any]:
        snap = outcome.snapshot
        data = snap.data
        rels = sorted({i for a in outcome.ids for i in data.by_article.get(a, ())})
        return {
            "added": outcome.ids,
            "replaced": outcome.replaced,
            "relations": [with_seen(snap, r) for r in relation_records(data, rels)],
            "stories": {a: data.story_of.get(a) for a in outcome.ids},
            "errors": [e.to_record() for e in errors],
            "generation": snap.generation,
        }

    # -------------------------------------------------------------- JSON API

    post_body = {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "oneOf": [
                        {"$ref": "#/components/schemas/ArticleIn"},
                        {"$ref": "#/components/schemas/ArticleBatch"},
                        {"type": "array", "items": {"$ref": "#/components/schemas/ArticleIn"}},
                    ]
                }
            },
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "files": {
                            "type": "array",
                            "items": {"type": "string", "format": "binary"},
                            "description": "files in any format `unspin scan` reads",
                        },
                        "text": {"type": "string", "description": "a pasted article"},
                        "title": {"type": "string"},
                        "outlet": {"type": "string"},
                        "url": {"type": "string"},
                        "published_at": {"type": "string"},
                        "id": {"type": "string"},
                    },
                }
            },
        },
    }

    @app.get("/health", tags=["service"], summary="Liveness (no token needed)")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.post(
        "/articles",
        status_code=201,
        tags=["articles"],
        summary="Add one article or a batch (JSON or file upload)",
        openapi_extra={"requestBody": post_body},
        responses={
            201: {"description": "the new articles' relations to what is in the store"},
            401: {"description": "no or wrong bearer token"},
            413: {"description": "body or batch too large"},
            415: {"description": "neither JSON nor a multipart form"},
            422: {"description": "invalid articles; nothing could be read"},
        },
    )
    async def post_articles(request: Request) -> JSONResponse:
        """Add articles and answer with their relations to what is in the store.

        JSON: an article object, a list of them, or ``{"articles": [...]}``. Multipart:
        files in any format ``scan`` reads (plain text, Markdown, HTML, JSON, JSON Lines,
        CSV, Parquet, gzip-compressed or not) and/or a pasted ``text`` with ``title``,
        ``outlet``, ``url``, ``published_at``. An id already in the store is replaced.
        """
        need_write(request)
        articles, errors = await ingest_request(request)
        outcome = await run_in_threadpool(write, articles, errors)
        return JSONResponse(added_body(outcome, errors), status_code=201)

    @app.get("/articles", tags=["articles"], summary="List articles")
    def list_articles(
        request: Request,
        q: Annotated[str, Query(description="words that must all appear in the title or id")] = "",
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> dict[str, Any]:
        need_read(request)
        data = service.current().data
        words = q.lower().split()
        rows = [
            a
            for a in data.articles.values()
            if all(w in f"{a.get('title') or ''} {a['id']}".lower() for w in words)
        ]
        return {"total": len(rows), "articles": rows[offset : offset + limit]}

    @app.get("/articles/{article_id:path}", tags=["articles"], summary="One article")
    def get_article(request: Request, article_id: str) -> dict[str, Any]:
        """The article's record, text, story and relations (with their changes)."""
        need_read(request)
        snap = service.current()
        data = snap.data
        rec = data.articles.get(article_id)
        if rec is None:
            raise ApiError(404, f"no article with id {article_id!r}")
        rels = relation_records(data, data.by_article.get(article_id, ()))
        return {
            "article": rec,
            "text": data.text(article_id),
            "story": data.story_of.get(article_id),
            "relations": [with_seen(snap, r) for r in rels],
            "quotes": [data.quotes[i] for i in data.quotes_by_article.get(article_id, ())],
        }

    @app.delete("/articles/{article_id:path}", tags=["articles"], summary="Remove an article")
    def delete_article(request: Request, article_id: str) -> dict[str, Any]:
        """Remove the article and every relation, change and story membership derived
        from it (the results are recomputed without it)."""
        need_write(request)
        if article_id not in service.current().articles:
            raise ApiError(404, f"no article with id {article_id!r}")
        snap = service.remove_articles([article_id])
        return {"removed": [article_id], "generation": snap.generation}

    @app.get("/stories", tags=["stories"], summary="List stories")
    def list_stories(
        request: Request,
        q: Annotated[str, Query(description="words in a title, label or id")] = "",
        relation: Annotated[
            list[str] | None, Query(description="only stories with a relation of these types")
        ] = None,
        min_confidence: Annotated[float, Query(ge=0, le=1)] = 0.0,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> dict[str, Any]:
        need_read(request)
        relation = relation or []
        check_types(relation)
        data = service.current().data
        rows = filter_stories(data, q, relation or None, min_confidence)
        return {
            "total": len(rows),
            "stories": [story_summary(s) for s in rows[offset : offset + limit]],
        }

    @app.get("/stories/{story_id}", tags=["stories"], summary="One story")
    def get_story(request: Request, story_id: str) -> dict[str, Any]:
        """The story, its lineage graph (edges and unseen sources), its relations and
        its quotation groups."""
        need_read(request)
        snap = service.current()
        data = snap.data
        s = data.story(story_id)
        if s is None:
            raise ApiError(404, f"no story with id {story_id!r}")
        return {
            "story": story_summary(s),
            "lineage": data.lineage.get(s.id),
            "relations": [
                with_seen(snap, r) for r in relation_records(data, data.story_relations(s))
            ],
            "quotes": [data.quotes[i] for i in data.story_quotes(s)],
        }

    @app.get("/relations", tags=["relations"], summary="Relations, filtered")
    def list_relations(
        request: Request,
        relation: Annotated[list[str] | None, Query(description="relation types (any of)")] = None,
        min_confidence: Annotated[float, Query(ge=0, le=1)] = 0.0,
        since: Annotated[
            str | None, Query(description="ISO 8601 time: only relations first seen at or after it")
        ] = None,
        article: Annotated[str | None, Query(description="only relations of this article")] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> dict[str, Any]:
        need_read(request)
        relation = relation or []
        check_types(relation)
        after = parse_since(since)
        snap = service.current()
        data = snap.data
        pool = data.by_article.get(article, []) if article else range(len(data.relations))
        rows = []
        for i in pool:
            r = data.relations[i]
            if relation and r["relation"] not in relation:
                continue
            if r["confidence"] < min_confidence:
                continue
            if (
                after is not None
                and snap.first_seen.get((r["a"], r["b"], r["relation"]), 0) < after
            ):
                continue
            rows.append(i)
        page = relation_records(data, rows[offset : offset + limit])
        return {"total": len(rows), "relations": [with_seen(snap, r) for r in page]}

    @app.get("/quotes", tags=["quotes"], summary="Quotation groups")
    def list_quotes(
        request: Request,
        article: Annotated[
            str | None, Query(description="only groups this article carries")
        ] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = PAGE,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> dict[str, Any]:
        need_read(request)
        data = service.current().data
        idx = data.quotes_by_article.get(article, []) if article else range(len(data.quotes))
        rows = [data.quotes[i] for i in idx]
        return {"total": len(rows), "quotes": rows[offset : offset + limit]}

    @app.get("/compare", tags=["relations"], summary="How two stored articles relate")
    def compare(
        request: Request,
        a: Annotated[str, Query(description="an article id")],
        b: Annotated[str, Query(description="another article id")],
    ) -> dict[str, Any]:
        """The stored relation of the pair (with its changes) if the scan found one;
        otherwise the two texts are compared now (``unspin.compare``)."""
        need_read(request)
        snap = service.current()
        for x in (a, b):
            if x not in snap.articles:
                raise ApiError(404, f"no article with id {x!r}")
        if a == b:
            raise ApiError(422, "a and b are the same article")
        found = snap.data.relation(a, b)
        if found is not None:
            rec = relation_records(snap.data, [found[0]])[0]
            return {"relation": with_seen(snap, rec), "stored": True}
        import unspin

        rel = unspin.compare(snap.articles[a], snap.articles[b], settings.config)
        rec = rel.to_record()
        rec["changes"] = [c.to_record() for c in rel.changes]
        return {"relation": rec, "stored": False}

    @app.get("/errors", tags=["service"], summary="Skipped inputs")
    def list_errors(request: Request) -> dict[str, Any]:
        """Input errors of the last write's results (``errors.jsonl``) and of recent
        uploads to this server."""
        need_read(request)
        return {
            "errors": service.current().data.errors,
            "recent_uploads": list(service.recent_errors),
        }

    def check_types(types: Sequence[str]) -> None:
        bad = [t for t in types if t not in RELATIONS]
        if bad:
            raise ApiError(
                422, f"unknown relation type {bad[0]!r}; expected one of {', '.join(RELATIONS)}"
            )

    def parse_since(since: str | None) -> float | None:
        if since is None or not since.strip():
            return None
        try:
            when = datetime.fromisoformat(since.strip().replace("z", "Z"))
        except ValueError:
            raise ApiError(
                422, f"since={since!r} is not an ISO 8601 time (e.g. 2025-05-01T12:00:00Z)"
            ) from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return when.timestamp()

    def with_seen(snap: Snapshot, rec: dict[str, Any]) -> dict[str, Any]:
        at = snap.first_seen.get((rec["a"], rec["b"], rec["relation"]))
        rec["first_seen"] = (
            datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds") if at else None
        )
        return rec

    # -------------------------------------------------------------- pages

    def page_response(html: str, status: int = 200) -> HTMLResponse:
        headers = {"Content-Security-Policy": csp(live=True)}
        return HTMLResponse(html, status_code=status, headers=headers)

    def page(request: Request, view: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        snap = ctx.pop("snap", None) or service.current()
        html = render_page(
            "page.html.j2",
            snap.data,
            view=view,
            can_write=can_write(request),
            logged_in=can_write(request),
            public_read=settings.public_read,
            **ctx,
        )
        return page_response(html, status)

    def listing(request: Request, view: str, key: str, items: list, **ctx: Any) -> HTMLResponse:
        """:func:`page` with one page of ``items`` (``PAGE`` of them from the request's
        offset) as ``key``, and the counts its pager reads."""
        offset = offset_of(request)
        return page(
            request,
            view,
            total=len(items),
            offset=offset,
            page_size=PAGE,
            **{key: items[offset : offset + PAGE]},
            **ctx,
        )

    def need_page_read(request: Request) -> RedirectResponse | None:
        if can_read(request):
            return None
        return RedirectResponse("/ui/login", status_code=303)

    def types_of(request: Request) -> list[str] | None:
        chosen = request.query_params.getlist("relation")
        check_types(chosen)
        return chosen or None

    def min_conf(request: Request) -> float:
        raw = request.query_params.get("min_confidence", "0") or "0"
        try:
            v = float(raw)
        except ValueError:
            raise ApiError(422, f"min_confidence={raw!r} is not a number") from None
        if not 0 <= v <= 1:
            raise ApiError(422, f"min_confidence must be in [0, 1], got {v}")
        return v

    def offset_of(request: Request) -> int:
        try:
            return max(0, int(request.query_params.get("offset", "0")))
        except ValueError:
            raise ApiError(422, "offset must be a whole number") from None

    @app.get("/", include_in_schema=False)
    def home(request: Request) -> Response:
        if (r := need_page_read(request)) is not None:
            return r
        snap = service.current()
        q = request.query_params.get("q", "")
        types, mc = types_of(request), min_conf(request)
        rows = filter_stories(snap.data, q, types, mc)
        return listing(
            request,
            "home",
            "stories",
            rows,
            snap=snap,
            q=q,
            types=types,
            min_conf=mc,
            title="Stories",
        )

    @app.get("/ui/stories/{story_id}", include_in_schema=False)
    def story_page(request: Request, story_id: str) -> Response:
        if (r := need_page_read(request)) is not None:
            return r
        snap = service.current()
        s = snap.data.story(story_id)
        if s is None:
            raise ApiError(404, f"no story with id {story_id!r}")
        return page(request, "story", snap=snap, story=s, title=s.label)

    @app.get("/ui/pair", include_in_schema=False)
    def pair_page(request: Request, a: str = "", b: str = "") -> Response:
        if (r := need_page_read(request)) is not None:
            return r
        from unspin.report import pair_view

        snap = service.current()
        found = snap.data.relation(a, b)
        if found is None:
            raise ApiError(404, f"no relation between {a!r} and {b!r} in the store")
        pv = pair_view(snap.data, found[0])
        return page(request, "pair", snap=snap, pv=pv, title=f"{a} and {b}")

    @app.get("/ui/articles/{article_id:path}", include_in_schema=False)
    def article_page(request: Request, article_id: str) -> Response:
        if (r := need_page_read(request)) is not None:
            return r
        snap = service.current()
        rec = snap.data.articles.get(article_id)
        if rec is None:
            raise ApiError(404, f"no article with id {article_id!r}")
        return page(
            request,
            "article",
            snap=snap,
            article=rec,
            title=rec.get("title") or article_id,
        )

    @app.get("/ui/relations", include_in_schema=False)
    def relations_page(request: Request) -> Response:
        if (r := need_page_read(request)) is not None:
            return r
        snap = service.current()
        data = snap.data
        types, mc = types_of(request), min_conf(request)
        words = request.query_params.get("q", "").lower().split()
        rows = []
        for i, rel in enumerate(data.relations):
            if types and rel["relation"] not in types:
                continue
            if rel["confidence"] < mc:
                continue
            if words:
                hay = f"{data.title(rel['a'])} {data.title(rel['b'])} {rel['a']} {rel['b']}"
                if not all(w in hay.lower() for w in words):
                    continue
            rows.append(i)
        rows.sort(key=lambda i: -data.relations[i]["confidence"])
        return listing(
            request,
            "relations",
            "rows",
            rows,
            snap=snap,
            q=request.query_params.get("q", ""),
            types=types,
            min_conf=mc,
            title="Relations",
        )

    @app.get("/ui/quotes", include_in_schema=False)
    def quotes_page(request: Request) -> Response:
        if (r := need_page_read(request)) is not None:
            return r
        return page(request, "quotes", title="Quotation groups")

    @app.get("/ui/errors", include_in_schema=False)
    def errors_page(request: Request) -> Response:
        if (r := need_page_read(request)) is not None:
            return r
        return page(request, "errors", recent=list(service.recent_errors), title="Skipped inputs")

    @app.get("/ui/login", include_in_schema=False)
    def login_form(request: Request) -> Response:
        return page(request, "login", title="Log in", failed=False)

    @app.post("/ui/login", include_in_schema=False)
    async def login(request: Request) -> Response:
        same_origin(request)
        _, fields = await read_form(request)
        if not token_ok(fields.get("token", ""), settings.token):
            return page(request, "login", status=401, title="Log in", failed=True)
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(
            SESSION_COOKIE,
            session_value(settings.token),
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            path="/",
        )
        return response

    @app.post("/ui/logout", include_in_schema=False)
    def logout(request: Request) -> Response:
        same_origin(request)
        response = RedirectResponse("/ui/login", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    @app.post("/ui/upload", include_in_schema=False)
    async def upload(request: Request) -> Response:
        same_origin(request)
        if not can_write(request):
            raise ApiError(401, "log in with the token to upload")
        articles, errors = await ingest_request(request)
        outcome = await run_in_threadpool(write, articles, errors)
        return page(
            request,
            "added",
            snap=outcome.snapshot,
            outcome=outcome,
            upload_errors=[e.to_record() for e in errors],
            title="Added",
        )

    @app.post("/ui/delete", include_in_schema=False)
    async def delete_form(request: Request) -> Response:
        same_origin(request)
        if not can_write(request):
            raise ApiError(401, "log in with the token to remove articles")
        _, fields = await read_form(request)
        aid = fields.get("id", "")
        if aid not in service.current().articles:
            raise ApiError(404, f"no article with id {aid!r}")
        await run_in_threadpool(service.remove_articles, [aid])
        return RedirectResponse("/", status_code=303)

    # OpenAPI: the two body models of POST /articles (read by hand: JSON or a form)
    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        from fastapi.openapi.utils import get_openapi

        schema = get_openapi(
            title=app.title,
            version=app.version,
            summary=app.summary,
            description=app.description,
            routes=app.routes,
        )
        comps = schema.setdefault("components", {}).setdefault("schemas", {})
        for model in (ArticleIn, ArticleBatch):
            s = model.model_json_schema(ref_template="#/components/schemas/{model}")
            for name, sub in s.pop("$defs", {}).items():
                comps[name] = sub
            comps[model.__name__] = s
        schema["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        schema["security"] = [{"bearer": []}]
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


def _version() -> str:
    from unspin import __version__

    return __version__


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def _detail(e: dict[str, Any]) -> str:
    where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
    return f"{where}: {e.get('msg', 'invalid')}" if where else str(e.get("msg", "invalid"))


# ------------------------------------------------------------------ body limit


class BodyTooLarge(Exception):
    pass


class BodyLimit:
    """ASGI middleware: refuse bodies over ``limit`` bytes with 413, from the
    Content-Length header when given, else while the body streams in."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                return await self._refuse(send, 400, "invalid Content-Length header")
            if declared > self.limit:
                return await self._refuse(send, 413, self._message())
        seen = 0
        started = False

        async def limited_receive() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge()
            return message

        async def tracking_send(message: dict) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await self._refuse(send, 413, self._message())

    def _message(self) -> str:
        return f"request body is over the limit of {self.limit:,} bytes"

    async def _refuse(self, send: Callable, status: int, message: str) -> None:
        body = json.dumps({"status": status, "error": _reason(status), "message": message})
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body.encode()})


def generate_token() -> str:
    return secrets.token_urlsafe(24)
