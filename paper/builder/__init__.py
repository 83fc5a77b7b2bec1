"""The paper's builder: ``python -m paper.builder`` (from the repository's
root) writes ``paper/paper.md``, its figures and ``paper/numbers.json``
(:mod:`paper.builder.build`); ``python -m paper.builder.cache`` solves the
house-rule variants it compares into ``paper/cache/`` beforehand;
``python -m paper.builder.pdf`` prints ``paper/paper.md`` to
``paper/paper.pdf`` beside it with headless Chromium (:mod:`paper.builder.pdf`).

Not part of the installed package: it reads the repository (``tables/``,
``tests/``'s reference solver, ``paper/template.md`` and the measurements
in ``paper/*.json``) and imports :mod:`solver` like any user of it.
"""
