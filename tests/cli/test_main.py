"""The `mobile-r1` entry point: help, usage errors and project errors end cleanly with the right status."""

from __future__ import annotations

import subprocess
import sys

from mobile_r1.cli.main import main


def test_help_lists_the_commands(capsys) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("reward", "match", "data"):
        assert command in out


def test_usage_error_is_not_a_traceback(capsys) -> None:
    assert main(["reward", "--no-such-flag"]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    assert "no-such-flag" in captured.err + captured.out


def test_project_error_prints_one_clean_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mobile_r1.cli.main", "reward", "--preset", "nope", "--input", "/dev/null"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: unknown reward preset 'nope'")


def test_eval_help_names_the_ray_extra_as_pip_takes_it(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["eval", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.replace("│", " ").split())
    assert "pip install 'mobile-r1[ray]'" in out
