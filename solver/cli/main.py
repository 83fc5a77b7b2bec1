"""The ``farkle`` command: parses, calls the library, prints.

Every command takes ``--json`` for scripts, and ``--lang fr|en``. Bad input
ends with one line on stderr and exit status 2. This module runs a command
line: its language first (:mod:`solver.cli.language`), then the parser
(:mod:`solver.cli.parser`) and the command: about games and tables
(:mod:`solver.cli.games`), at the table (:mod:`solver.cli.at_table`), the
referee (:mod:`solver.cli.referee`); what they share is in
:mod:`solver.cli.args` and :mod:`solver.cli.tables`.
"""

from __future__ import annotations

import contextvars
import sys

from solver.cli.args import one_line
from solver.cli.language import language_of
from solver.cli.parser import Parser, build_parser
from solver.model.errors import UsageError
from solver.text import _, set_language

__all__ = ["Parser", "build_parser", "main"]


def main(argv=None) -> int:
    """``farkle ARGV``: the exit status. The language it chose stays its
    own: a caller in the same thread (a test) keeps its language."""
    argv = sys.argv[1:] if argv is None else [str(word) for word in argv]
    return contextvars.copy_context().run(_main, argv)


def _main(argv: list[str]) -> int:
    try:
        # --json output is the same in every language (scripts read it): the
        # command runs in English, its errors too.
        set_language("en" if "--json" in argv else language_of(argv))
        parser = build_parser()
        args = parser.parse_args(argv)
        if getattr(args, "json", False):
            set_language("en")
        if not getattr(args, "run", None):
            parser.print_help()
            return 2
        return args.run(args) or 0
    except UsageError as error:
        print(f"farkle: {one_line(str(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("farkle: " + _("interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
