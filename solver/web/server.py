"""``farkle serve``: the page for the table, over HTTP.

``GET /`` and its files (``solver/web``: plain HTML, CSS and JavaScript,
nothing fetched from elsewhere), the page's words in French
(``GET /api/messages?lang=fr``: :func:`page_messages`) and the JSON
questions of :mod:`solver.web.api`. Nothing is written anywhere: tables are
only read.

**In the request's language.** A request says its language by its
``lang`` query parameter or its Accept-Language header
(:func:`request_language`; else the server's own, ``--lang`` or the
environment): its error lines and the texts the answers carry (a refusal,
the strategy card, the default names) are in it. The language is set in
the thread serving the request (solver.text's context variable) and reset
after it. JSON keys and the values the page computes with never change.

What the server guarantees, whoever connects:

- **Many phones at once.** Each connection has a thread of its own (the
  standard library's ``ThreadingHTTPServer``, daemon threads, so that
  Ctrl-C never waits for a phone), and the listen queue holds
  :data:`LISTEN_QUEUE` connections. The advisors the threads share are
  loaded once each (:class:`solver.web.api.TableDesk`).
- **No client holds anyone else.** A connection that sends nothing for
  :data:`IDLE_SECONDS` is closed, and a request (its line, headers and
  body) must have arrived within :data:`REQUEST_SECONDS`: an idle or slow
  client holds only its own thread, and only that long.
- **Bounded questions.** A body is at most :data:`MAX_BODY` bytes and
  nested at most :data:`MAX_DEPTH` deep; a game has 2 to 6 players, as on
  the command line.
- **JSON for every answer.** An error is its HTTP status and ``{"error":
  one line}``: a question the game cannot take (400), an unknown path
  (404), a method a path does not take (405, with ``Allow``), and the
  errors ``http.server`` finds itself (a malformed request line, an
  unknown method 501, a request line too long 414...). A body that is not
  a valid question gets a 4xx, never a 500; a 500 is a fault of the
  server, logged, and the server goes on.
- **A quiet log.** A client that hangs up or times out is no error of the
  server: it leaves no traceback.
"""

from __future__ import annotations

import io
import json
import re
import socket
import sys
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import parse_qs, urlsplit

from solver.model.errors import UsageError
from solver.text import LANGUAGES, _, catalog, language, number, set_language
from solver.web.api import TableDesk

MAX_BODY = 1 << 20
"""A request body larger than this is refused (a game's entries are a few KB)."""

MAX_DEPTH = 16
"""A question is nested four deep (body, entries, entry, dice): a body
nested deeper than this is refused before the game sees it."""

IDLE_SECONDS = 10
"""A connection silent this long (while the server waits to read or to
write) is closed."""

REQUEST_SECONDS = 30
"""A request must have arrived, whole, this long after its connection
opened: a body sent a byte a second is cut off here."""

LISTEN_QUEUE = 64
"""Connections the system holds for the server before refusing more."""

MAX_MESSAGE = 300
"""An error's one line is cut to this many characters."""

STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/text.js": ("text.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}
QUESTIONS = ("/api/game", "/api/advise")
GET_PATHS = (*STATIC, "/api/games", "/api/messages")
PAGE_SCRIPTS = ("text.js", "app.js")
"""The page's scripts, whose marked words ``/api/messages`` translates."""

HUNG_UP = (ConnectionError, TimeoutError)
"""What a client that goes away or goes silent raises in the thread
serving it (``BrokenPipeError``, ``ConnectionResetError``, a socket
timeout): nothing to report."""


class Refusal(Exception):
    """A request answered with ``status`` and one line, before it is a
    question (its size, its framing, its JSON)."""

    def __init__(self, status: HTTPStatus, message: str):
        super().__init__(message)
        self.status = status


def page_file(name: str) -> bytes:
    return resources.files("solver").joinpath("web", name).read_bytes()


# ---------------------------------------------------------------- the page's words
_PAGE_MESSAGE = re.compile(r'\b(?:N_|_)\(\s*("(?:[^"\\\n]|\\.)*")\s*\)')
_PAGE_PLURAL = re.compile(r'\bngettext\(\s*("(?:[^"\\\n]|\\.)*")\s*,\s*("(?:[^"\\\n]|\\.)*")')
_page_messages: dict[str, dict] = {}


def page_messages(code: str) -> dict:
    """The page's messages in language ``code`` (``GET /api/messages``): each
    message marked in its scripts (``_("...")``, ``N_("...")``) -> its
    translation, and each ``ngettext(singular, plural, n)`` -> its forms
    ``[one, millions, other]`` (the catalog's plural forms: French has three;
    text.js picks one by the language's rule). English has none: the page
    shows what it marks."""
    if code not in _page_messages:
        script = "\n".join(page_file(name).decode() for name in PAGE_SCRIPTS)
        found = catalog(code)
        messages: dict = {}
        if code != "en":
            for literal in _PAGE_MESSAGE.findall(script):
                text = json.loads(literal)
                messages[text] = found.gettext(text)
            for one, many in _PAGE_PLURAL.findall(script):
                one, many = json.loads(one), json.loads(many)
                messages[one] = [found.ngettext(one, many, n) for n in (1, 1_000_000, 2)]
        _page_messages[code] = messages
    return _page_messages[code]


def request_language(path: str, accept: str | None, default: str) -> str:
    """The language a request asks for: its ``lang`` query parameter
    (``fr``, ``en``), else the first language of its Accept-Language
    header that the program speaks (by quality), else ``default`` (the
    server's own: ``--lang`` or the environment)."""
    for value in parse_qs(urlsplit(path).query).get("lang", []):
        code = _primary(value)
        if code in LANGUAGES:
            return code
    ranked = []
    for order, part in enumerate((accept or "").split(",")):
        tag, _semicolon, rest = part.partition(";")
        quality = 1.0
        match = re.search(r"q\s*=\s*([0-9.]+)", rest)
        if match:
            try:
                quality = float(match.group(1))
            except ValueError:
                quality = 0.0
        if _primary(tag) in LANGUAGES and quality > 0:
            ranked.append((-quality, order, _primary(tag)))
    return min(ranked)[2] if ranked else default


def _primary(tag: str) -> str:
    """``fr`` of ``fr-FR``, ``FR``, `` fr_CA``."""
    return tag.strip().replace("_", "-").split("-")[0].lower()


def one_line(text: str) -> str:
    """``text`` on one line of at most :data:`MAX_MESSAGE` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "\u2026"


class _ReadBefore(io.RawIOBase):
    """A connection's incoming bytes, refused after ``deadline``.

    The socket's own timeout bounds each wait for bytes; this bounds the
    whole request, so that a client sending a byte every few seconds (which
    never trips the socket's timeout) is still cut off."""

    def __init__(self, sock: socket.socket, deadline: float, idle: float):
        self.sock, self.deadline, self.idle = sock, deadline, idle

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"the request did not arrive within {REQUEST_SECONDS} s")
        self.sock.settimeout(min(self.idle, left))
        try:
            return self.sock.recv_into(buffer)
        finally:
            self.sock.settimeout(self.idle)     # writing the answer waits as long as ever


class TableServer(ThreadingHTTPServer):
    """``http.server``'s threading server, with a deeper listen queue and a
    log without tracebacks for clients that hang up."""

    daemon_threads = True
    request_queue_size = LISTEN_QUEUE

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], HUNG_UP):
            return                              # the client left: nothing went wrong here
        super().handle_error(request, client_address)


def make_handler(desk: TableDesk, quiet: bool = False):
    """The request handler class serving ``desk``."""

    # The threads serving requests do not inherit the language chosen here
    # (``--lang``): each request sets its own (request_language).
    server_language = language()

    class Handler(BaseHTTPRequestHandler):
        server_version = "farkle-serve"
        timeout = IDLE_SECONDS                  # StreamRequestHandler sets it on the socket

        def handle_one_request(self):
            """One request, answered in its language (set in this thread:
            solver.text's context variable), then the server's again."""
            set_language(server_language)
            try:
                super().handle_one_request()
            finally:
                set_language(None)

        def parse_request(self):
            ok = super().parse_request()
            if ok:
                set_language(request_language(self.path, self.headers.get("Accept-Language"),
                                              server_language))
            return ok

        def setup(self):
            super().setup()
            self.rfile.close()                  # the socket's own reader, replaced here
            deadline = time.monotonic() + REQUEST_SECONDS
            self.rfile = io.BufferedReader(_ReadBefore(self.connection, deadline, self.timeout))

        # --------------------------------------------------------- methods
        def do_GET(self):
            path = self._path()
            if path in QUESTIONS:
                return self._wrong_method(path)
            if path == "/api/games":
                return self._answer(lambda: (HTTPStatus.OK, {"games": desk.game_list()}))
            if path == "/api/messages":
                return self._answer(lambda: (HTTPStatus.OK, {
                    "lang": language(), "messages": page_messages(language())}))
            if path in STATIC:
                name, kind = STATIC[path]
                return self._send(HTTPStatus.OK, page_file(name), kind)
            self._error(HTTPStatus.NOT_FOUND, _("no page {path}").format(path=path))

        do_HEAD = do_GET                        # the same headers, no body (_send)

        def do_POST(self):
            path = self._path()
            questions = {"/api/game": desk.play, "/api/advise": desk.advise}
            if path not in questions:
                return self._wrong_method(path)
            self._answer(lambda: (HTTPStatus.OK, questions[path](self._body())))

        def _wrong_method(self, path: str):
            """405 and the methods ``path`` takes, or 404 for no such path."""
            self._discard_body()
            if path in QUESTIONS:
                return self._error(HTTPStatus.METHOD_NOT_ALLOWED, _(
                    "{path} takes POST, not {method}").format(path=path, method=self.command),
                    allow="POST")
            if path in GET_PATHS:
                return self._error(HTTPStatus.METHOD_NOT_ALLOWED, _(
                    "{path} takes GET, not {method}").format(path=path, method=self.command),
                    allow="GET, HEAD")
            self._error(HTTPStatus.NOT_FOUND, _("no page {path}").format(path=path))

        def _other_method(self):
            self._wrong_method(self._path())

        # The other methods of HTTP: a JSON 405 (or 404) rather than
        # http.server's HTML 501. A method HTTP does not have is a 501,
        # through send_error below.
        do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _other_method

        # ------------------------------------------------------- answering
        def _answer(self, ask):
            """Send what ``ask()`` returns: (status, data). A refusal or a
            question the game cannot take is its status and one line."""
            try:
                status, data = ask()
            except Refusal as error:
                return self._error(error.status, str(error))
            except UsageError as error:
                return self._error(getattr(error, "status", HTTPStatus.BAD_REQUEST),
                                   str(error), retry_after=getattr(error, "retry_after", None))
            except HUNG_UP:
                raise                           # the client is gone: nobody to answer
            except Exception as error:          # the server goes on whatever happens
                self.log_error("failed on %s: %r", self.path, error)
                return self._error(HTTPStatus.INTERNAL_SERVER_ERROR, _(
                    "the server failed on this question: {error}").format(error=repr(error)))
            self._json(status, data)

        def _body(self):
            """The request's JSON, or a :class:`Refusal`."""
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                raise Refusal(HTTPStatus.LENGTH_REQUIRED,
                              _("a question needs its Content-Length (no chunked bodies)"))
            length = self._length()
            if length > MAX_BODY:
                raise Refusal(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                              _("the request body is over {most} bytes").format(
                                  most=_whole(MAX_BODY)))
            try:
                raw = self.rfile.read(length)
            except TimeoutError:
                raise Refusal(HTTPStatus.REQUEST_TIMEOUT, _(
                    "the request body did not arrive within {seconds} s (or stopped for "
                    "{idle} s)").format(seconds=REQUEST_SECONDS, idle=IDLE_SECONDS)) from None
            if len(raw) < length:
                raise Refusal(HTTPStatus.BAD_REQUEST, _(
                    "the request body ended after {got} of its {length} bytes").format(
                        got=_whole(len(raw)), length=_whole(length)))
            try:
                body = json.loads(raw or b"null")
            except RecursionError:
                raise Refusal(HTTPStatus.BAD_REQUEST,
                              _("the request body is nested too deeply")) from None
            except ValueError as error:
                # Not JSON, not UTF-8, or an integer longer than Python
                # turns from text (4,300 digits: sys.get_int_max_str_digits).
                what = error if isinstance(error, (json.JSONDecodeError, UnicodeDecodeError)) \
                    else _("it holds a number too long to read")
                raise Refusal(HTTPStatus.BAD_REQUEST,
                              _("the request body is not JSON: {reason}").format(reason=what)) \
                    from None
            if _depth(body) > MAX_DEPTH:
                raise Refusal(HTTPStatus.BAD_REQUEST,
                              _("the request body is nested over {most} deep").format(
                                  most=MAX_DEPTH))
            return body

        def _length(self) -> int:
            text = self.headers.get("Content-Length", "0").strip()
            # Digits only, and few: int() would take "-5" (a read to the end
            # of the connection) or "1_000", and fail on 4,300 digits.
            if not text.isdigit() or not text.isascii() or len(text) > 12:
                raise Refusal(HTTPStatus.BAD_REQUEST, _(
                    "Content-Length is not a number of bytes: {text}").format(
                        text=repr(text[:20])))
            return int(text)

        def _discard_body(self):
            """Read a body that will not be answered, so that closing the
            connection does not reset it before the client reads the answer."""
            try:
                length = self._length()
                if length <= MAX_BODY:
                    self.rfile.read(length)
            except (Refusal, TimeoutError):
                pass

        def _path(self) -> str:
            return self.path.split("?", 1)[0]

        # --------------------------------------------------------- sending
        def _error(self, status, message: str, allow: str | None = None,
                   retry_after: int | None = None):
            """``{"error": one line}``; with ``retry_after`` (a table being
            made by another process: 503) also that field and the header
            Retry-After, after which the page asks again."""
            data, headers = {"error": one_line(message)}, {"Allow": allow}
            if retry_after is not None:
                data["retry_after"] = headers["Retry-After"] = retry_after
            self._json(status, data, headers)

        def _json(self, status, data, headers: dict | None = None):
            self._send(status, json.dumps(data).encode(), "application/json", headers)

        def _send(self, status, body: bytes, kind: str, headers: dict | None = None):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            for name, value in (headers or {}).items():
                if value is not None:
                    self.send_header(name, str(value))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def send_error(self, code, message=None, explain=None):
            """http.server's own errors (a malformed request line, a method
            HTTP does not have, a line or header too long) as JSON, like
            every other answer, where http.server writes an HTML page."""
            status = HTTPStatus(code)
            message = message or status.phrase
            self.log_error("code %d, message %s", code, message)
            self.close_connection = True
            # A line http.server cannot read is taken for HTTP/0.9, which
            # has no status line: the answer has one all the same.
            if self.request_version == "HTTP/0.9":
                self.request_version = "HTTP/1.0"
            self._error(status, message)

        def log_message(self, format, *args):
            if not quiet:
                sys.stderr.write(f"{self.address_string()} {format % args}\n")

    return Handler


def _depth(value) -> int:
    """How deep lists and objects nest in ``value`` (a number is 0), without
    recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else \
            value if isinstance(value, list) else None
        if children is not None:
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                break
            stack.extend((child, depth + 1) for child in children)
    return deepest


def serve(desk: TableDesk, host: str, port: int, quiet: bool = False) -> None:
    """Serve until interrupted; the address goes to stdout first (with
    ``port`` 0 the system picks a free port)."""
    try:
        server = TableServer((host, port), make_handler(desk, quiet))
    except OSError as error:
        raise UsageError(_("cannot serve on {host}:{port}: {reason}").format(
            host=host, port=port, reason=error.strerror)) from None
    bound_host, bound_port = server.server_address[:2]
    print(_("serving the page on {address} (Ctrl-C stops)").format(
        address=f"http://{bound_host}:{bound_port}/"), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _whole(value: int) -> str:
    """A count in a message: ``1 048 576`` in French, ``1048576`` in English
    (as the server has always written it)."""
    return str(value) if language() == "en" else number(value)
