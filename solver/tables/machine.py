"""What machine a measurement ran on: the line recorded beside it in
``solver/cards/cards.json``, ``paper/*.json`` and the paper, and printed by
the scripts and benchmarks for BENCHMARKS.md."""

import os
import platform


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> str:
    return f"{os.cpu_count()} cores, {cpu_model()}, Python {platform.python_version()}"
