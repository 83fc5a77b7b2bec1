"""``farkle serve``: the page for the table, over HTTP.

The standard library's server is enough: one person's phone (or a few at
one table) asks a question at a time, and each answer is a few
milliseconds once the table is read. Requests are served one at a time,
which also keeps the tables' file handles to a single thread.

``GET /`` and its files (``solver/web``: plain HTML, CSS and JavaScript,
nothing fetched from elsewhere) and the JSON questions of
:mod:`solver.web.api`. A question the game cannot take is answered with
its HTTP status and ``{"error": one line}``; the server goes on. Nothing is
written anywhere: tables are only read.
"""

from __future__ import annotations

import json
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from importlib import resources

from solver.model.errors import UsageError
from solver.web.api import BadRequest, TableDesk

MAX_BODY = 1 << 20
"""A request body larger than this is refused (a game's entries are a few KB)."""

STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}


def page_file(name: str) -> bytes:
    return resources.files("solver").joinpath("web", name).read_bytes()


def make_handler(desk: TableDesk, quiet: bool = False):
    """The request handler class serving ``desk``."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "farkle-serve"

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            if path == "/api/games":
                return self._json(HTTPStatus.OK, {"games": desk.game_list()})
            if path in STATIC:
                name, kind = STATIC[path]
                return self._send(HTTPStatus.OK, page_file(name), kind)
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {path}"})

        def do_POST(self):
            questions = {"/api/game": desk.play, "/api/advise": desk.advise}
            question = questions.get(self.path)
            if question is None:
                return self._json(HTTPStatus.NOT_FOUND, {"error": f"no question {self.path}"})
            try:
                answer = question(self._body())
            except UsageError as error:
                return self._json(getattr(error, "status", HTTPStatus.BAD_REQUEST),
                                  {"error": str(error)})
            except Exception as error:           # the server goes on whatever happens
                self.log_error("failed on %s: %r", self.path, error)
                return self._json(HTTPStatus.INTERNAL_SERVER_ERROR,
                                  {"error": f"the server failed on this question: {error}"})
            self._json(HTTPStatus.OK, answer)

        def _body(self):
            try:
                length = int(self.headers.get("Content-Length", 0))
            except ValueError:
                raise BadRequest("Content-Length is not a number") from None
            if length > MAX_BODY:
                raise BadRequest(f"the request body is over {MAX_BODY} bytes")
            try:
                return json.loads(self.rfile.read(length) or b"null")
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                raise BadRequest(f"the request body is not JSON: {error}") from None

        def _json(self, status, data):
            self._send(status, json.dumps(data).encode(), "application/json")

        def _send(self, status, body: bytes, kind: str):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format, *args):
            if not quiet:
                sys.stderr.write(f"{self.address_string()} {format % args}\n")

    return Handler


def serve(desk: TableDesk, host: str, port: int, quiet: bool = False) -> None:
    """Serve until interrupted; the address goes to stdout first (with
    ``port`` 0 the system picks a free port)."""
    try:
        server = HTTPServer((host, port), make_handler(desk, quiet))
    except OSError as error:
        raise UsageError(f"cannot serve on {host}:{port}: {error.strerror}") from None
    bound_host, bound_port = server.server_address[:2]
    print(f"serving the page on http://{bound_host}:{bound_port}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
