"""`--ray ADDRESS` where no cluster answers, or that is no address: a clear error at once, not minutes of retries."""

from __future__ import annotations

import socket

import pytest

from mobile_r1.cli.main import main

pytest.importorskip("ray")


def test_a_cluster_address_nothing_answers_at_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = main(["eval", "--agent", "oracle", "--episodes", "1", "--ray", f"127.0.0.1:{port}"])
    err = capsys.readouterr().err
    assert code == 2 and "no Ray cluster answers at" in err and "Traceback" not in err


@pytest.mark.slow
def test_a_ray_address_that_is_no_address_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "--agent", "oracle", "--episodes", "1", "--ray", "not an address"])
    assert code == 2 and "a Ray address is HOST:PORT" in capsys.readouterr().err
