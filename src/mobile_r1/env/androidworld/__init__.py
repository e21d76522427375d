"""The `androidworld` backend: a client of AndroidWorld's HTTP server (its docker image, or our simulated phone
served with its API by `mobile-r1 sim serve --api androidworld`). See `backend` for how suites map to its task
families, `client` for the API and its error policy, `wire` for the JSON that crosses it."""

from mobile_r1.env.androidworld.backend import AndroidWorldBackend, AndroidWorldTaskEnv, packaged_tasks
from mobile_r1.env.androidworld.client import AndroidWorldClient

__all__ = ["AndroidWorldBackend", "AndroidWorldTaskEnv", "AndroidWorldClient", "packaged_tasks"]
