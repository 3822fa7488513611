"""Write seeded caller scenarios for callers nobody scripted: var/generated/{dev,test}/*.yaml.

    .venv/bin/python bench/generate_scenarios.py [--out var/generated] [--count 320] [--seed 2026]

The same seed gives byte-identical files. `test/` is for measuring only: look at its
pass rate, not at its failures (bench/generated_text.py plays both).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

import click

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generator.write import write  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@click.command()
@click.option("--out", type=click.Path(path_type=Path), default=ROOT / "var" / "generated", show_default=True)
@click.option("--count", type=click.IntRange(1), default=320, show_default=True)
@click.option("--seed", type=int, default=2026, show_default=True)
def main(out: Path, count: int, seed: int) -> None:
    started = time.perf_counter()
    scenarios = write(out, seed, count)
    splits = Counter(g.split for g in scenarios)
    families = Counter(g.family for g in scenarios)
    click.echo(f"{len(scenarios)} scenarios in {out} ({splits['dev']} dev, {splits['test']} test) "
               f"in {time.perf_counter() - started:.1f} s")
    click.echo(", ".join(f"{name} {n}" for name, n in families.most_common()))


if __name__ == "__main__":
    main()
