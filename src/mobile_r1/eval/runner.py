"""Online evaluation: run an agent on a suite of any phone backend, append each judged episode to a run directory,
and resume.

    config = EvalConfig(agent="oracle", suite="inquire-sim", split="test", episodes=50, workers=2, out=Path("runs/o"))
    result = run_eval(config)           # result.report: MetricsReport; RUN_DIR/episodes.jsonl, metrics.json, run.json

A run directory holds `run.json` (the resolved options), `episodes.jsonl` (one line per finished episode: the
trajectory with model text, parsed action, user replies, screenshot paths, and the judge's `verdict`),
`screens/<episode>/<step>.png` and `metrics.json`. Every line is written whole under a lock with one `write`,
then flushed and fsynced, so a killed run loses at most the episodes in flight; `resume=True` drops a torn last
line, skips finished episodes and runs only the rest, so the final metrics equal an uninterrupted run's.

An episode whose phone fails (`core.errors.InfraError`: a device gone, a server erroring or timing out) is not the
agent's failure: its record carries `infra_error` instead of a verdict, it is counted apart (`EvalResult.infra_errors`,
`metrics.json`'s "infra_errors") and left out of every metric, and `resume=True` plays it again (readers take the
last record of an episode: `load_run`).

Episodes come from the backend `env` names (`sim`, the built-in simulated phone, by default; see
`mobile_r1.env.make_backend`) and are played through `eval.episode.EpisodePlay`, the code stage-3 rollouts use too.
They run `workers` at a time: model agents (`hf:`, `openai:`) advance that many episodes together with one
`act_batch` call per turn; other agents run in `workers` processes, each with its own agent and backend. Every
episode depends only on its own seed (the `random` agent is re-seeded per episode), never on which worker ran it.

With `ray` (an address, or "local") the phones live in a pool of Ray actors (`mobile_r1.env.pools.RayBackend`
around `env`): every agent then runs here, at least one episode per pool worker in flight (or `workers`, if more),
one turn of all of them at a time, their phones stepped in parallel across the actors. Per-episode results are those
of a run in process; a worker that dies is replaced and its episodes are played again from their start on a new one
(nothing lost, nothing recorded twice).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from mobile_r1.agents import Agent, AgentOutput, AgentRequest, make_agent
from mobile_r1.agents.options import redact_options, validate_agent_options
from mobile_r1.core.errors import ConfigError, DataError, InfraError, MobileR1Error
from mobile_r1.core.files import make_dir, write_json
from mobile_r1.core.reading import Where, decode, loads, read_json
from mobile_r1.core.records import Observation
from mobile_r1.core.verdict import EpisodeVerdict
from mobile_r1.env import Backend, EpisodeRef, TaskEnv, reset_many
from mobile_r1.env.pools import make_pool
from mobile_r1.eval.episode import EpisodePlay, Turn, advance_many, self_corrections
from mobile_r1.eval import judge as _model_judge  # noqa: F401  (registers the model judge for device backends)
from mobile_r1.eval.metrics import MetricsReport, MetricSummary, summarize

BATCHED_KINDS = frozenset({"hf", "openai"})
SERIAL_KINDS = frozenset({"human"})
RESEEDED_KINDS = frozenset({"random"})
EPISODES_FILE, RUN_FILE, METRICS_FILE, SCREENS_DIR = "episodes.jsonl", "run.json", "metrics.json", "screens"
# Options that must agree between a run and its resumption (anything else, e.g. workers, may change).
RESUME_KEYS = ("agent", "env", "suite", "split", "episodes", "dialect", "observation", "max_steps", "seed",
               "agent_options", "env_options", "exclude")


@dataclass(slots=True)
class EvalConfig:
    """Options of one evaluation run.

    agent          an agent spec for `make_agent` (`oracle`, `random`, `hf:tiny-lm`, `openai:MODEL`, ...)
    env            the phone backend for `make_backend` (`sim`, `adb:SERIAL`, ...)
    suite, split   which episodes (`inquire-sim` / `nav-sim`; `test`, `train`, ...)
    episodes       run only the first N episodes of the split (None: all of them)
    workers        episodes in flight at once (processes for scripted agents, a batch for model agents)
    dialect        the agent's dialect (None: the agent's default)
    observation    "image" (screenshots) or "text" (the accessibility element list) for model agents (None: the
                   agent's default; for a model `mobile-r1 train` wrote, what it was trained on)
    max_steps      step budget per episode (None: the task's own `max_steps`)
    seed           base seed of the suite's episodes
    scale          screenshot scale of the 1080x2400 screen
    agent_options  further keyword options for `make_agent` (base_url, temperature, ...)
    env_options    further keyword options for `make_backend`
    exclude        a text file of instructions, one per line (a training set's): episodes with one of them are
                   skipped, and `episodes` counts the others (in-distribution episodes no training episode used)
    ray            play on a pool of Ray actors: "local" (a local cluster) or a cluster's address (None: in process)
    ray_workers    actors in the pool (None: one per CPU of the cluster)
    """

    agent: str
    env: str = "sim"
    suite: str = "inquire-sim"
    split: str = "test"
    episodes: int | None = None
    workers: int = 1
    dialect: str | None = None
    observation: str | None = None
    max_steps: int | None = None
    seed: int = 0
    scale: float = 0.3
    out: Path | None = None
    resume: bool = False
    agent_options: dict[str, Any] = field(default_factory=dict)
    env_options: dict[str, Any] = field(default_factory=dict)
    exclude: str | None = None
    ray: str | None = None
    ray_workers: int | None = None

    def validate(self) -> None:
        if self.workers < 1:
            raise ConfigError(f"--workers must be >= 1, got {self.workers}")
        if self.episodes is not None and self.episodes < 1:
            raise ConfigError(f"--episodes must be >= 1, got {self.episodes}")
        if self.max_steps is not None and self.max_steps < 1:
            raise ConfigError(f"--max-steps must be >= 1, got {self.max_steps}")
        if self.observation not in (None, "image", "text"):
            raise ConfigError(f"--observation must be 'image' or 'text', got {self.observation!r}")
        if not self.scale > 0:
            raise ConfigError(f"scale must be > 0, got {self.scale}")
        validate_agent_options(self.agent, self.agent_kwargs())  # before anything is written: no secrets, known keys
        if self.ray_workers is not None and self.ray_workers < 1:
            raise ConfigError(f"--ray-workers must be >= 1, got {self.ray_workers}")

    def backend(self) -> Backend:
        """The phone backend this run plays on (screenshots drawn: runs keep them): `env`, or the Ray pool around it."""
        return make_pool(self.env, self.ray, self.ray_workers, render=True, scale=self.scale, xml=False,
                         **self.env_options)

    @property
    def agent_kind(self) -> str:
        return self.agent.strip().partition(":")[0].lower()

    def resolved(self) -> dict[str, Any]:
        """The options as written to run.json (no secrets: agent options are the user's own flags)."""
        data = asdict(self)
        data["out"] = str(self.out) if self.out is not None else None
        data["agent_options"] = redact_options(self.agent_options)  # a key inside a URL is never stored
        data["env_options"] = redact_options(self.env_options)
        data.pop("resume")
        return data

    def agent_kwargs(self) -> dict[str, Any]:
        options = dict(self.agent_options)
        if self.dialect:
            options.setdefault("dialect", self.dialect)
        if self.agent_kind in BATCHED_KINDS and self.observation:
            options.setdefault("observation_mode", self.observation)
        return options


@dataclass(slots=True)
class EvalResult:
    """What a run produced: the metrics, every episode's verdict, and where it was written."""

    report: MetricsReport
    verdicts: list[EpisodeVerdict]
    run_dir: Path | None
    ran: int = 0
    skipped: int = 0
    seconds: float = 0.0
    needs_inquiry: MetricSummary | None = None
    infra_errors: list[str] = field(default_factory=list)  # episodes whose phone failed (not judged; --resume reruns)


# ----- suites ---------------------------------------------------------------------------------------------------
def suite_episodes(config: EvalConfig, backend: Backend | None = None) -> list[EpisodeRef]:
    """The episodes of the run's suite split, in the suite's order (the first `episodes` of them, a balanced prefix)."""
    own = backend is None
    backend = backend or config.backend()
    try:
        if config.exclude is None:
            return backend.episodes(config.suite, config.split, config.episodes, config.seed)
        path = Path(config.exclude)
        if not path.is_file():
            raise ConfigError(f"--exclude {path}: no such file (one instruction per line)")
        seen = {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
        kept = [e for e in backend.episodes(config.suite, config.split, None, config.seed) if e.instruction not in seen]
        return kept if config.episodes is None else kept[: config.episodes]
    finally:
        if own:
            backend.close()


# ----- one episode ----------------------------------------------------------------------------------------------
def safe_name(episode_id: str) -> str:
    """A folder name for an episode id (`shop.buy/test0/s3` -> `shop.buy__test0__s3`)."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in episode_id.replace("/", "__"))


def episode_seed(base: int, episode_id: str) -> int:
    """A stable per-episode seed for stochastic agents."""
    return int.from_bytes(hashlib.sha256(f"{base}:{episode_id}".encode()).digest()[:4], "big")


class EpisodeRun:
    """One episode in progress (`EpisodePlay` on the backend's phone) and its run-directory record."""

    def __init__(self, env: TaskEnv, config: EvalConfig, run_dir: Path | None, started: float | None = None) -> None:
        """`env`: the episode's phone, already reset; `started`: when its episode began (default: now)."""
        self.config = config
        self.run_dir = run_dir
        self.play = EpisodePlay(env, unreadable="wait", started=True)
        self.trajectory: list[dict[str, Any]] = []
        self.started = time.perf_counter() if started is None else started
        self.agent_error: str | None = None  # the agent could not answer: the episode ends here

    @property
    def id(self) -> str:
        return self.play.episode.id

    @property
    def done(self) -> bool:
        return self.play.done or self.agent_error is not None

    def request(self) -> AgentRequest:
        return self.play.request()

    def _save_screen(self, observation: Observation, index: int | str) -> str | None:
        if self.run_dir is None or observation.screenshot is None:
            return None
        rel = Path(SCREENS_DIR) / safe_name(self.id) / f"{index}.png"
        path = self.run_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        observation.screenshot.save(path, format="PNG", optimize=False, compress_level=1)
        return rel.as_posix()

    def advance(self, output: AgentOutput) -> None:
        """Apply the agent's answer to the phone and record the step."""
        error = advance_runs([self], [output])[0]
        if error is not None:
            raise error

    def _record(self, output: AgentOutput, obs: Observation, screen: str | None) -> dict[str, Any]:
        record: dict[str, Any] = {
            "index": len(self.trajectory),
            "model_text": output.text,
            "thought": output.thought,
            "description": output.description,
            "action": output.action.to_arguments() if output.action is not None else None,
            "valid": bool(output.parse.valid),
            "parse_error": output.parse.error,
            "observation": {"screen_size": list(obs.screen_size), "screenshot_path": screen,
                            "activity": obs.activity, "app": obs.app},
        }
        if output.info:
            record["agent_info"] = {k: v for k, v in output.info.items() if _jsonable(v)}
        return record

    def record(self, output: AgentOutput, turn: Turn, screen: str | None) -> None:
        """Add the turn `output` played to the trajectory (`screen`: where the screen it acted on was saved)."""
        record = self._record(output, turn.observation, screen)
        if turn.error:
            record["env_error"] = str(turn.error)
        if turn.info.extra:
            record["env_info"] = turn.info.extra
        if turn.user_reply is not None:
            record["user_reply"] = turn.user_reply
        self.trajectory.append(record)

    def record_agent_error(self, output: AgentOutput, screen: str | None) -> None:
        """An agent error (e.g. an endpoint's malformed replies): the step is recorded, the phone is not touched and
        this episode ends; the run goes on."""
        assert output.error is not None
        record = self._record(output, self.play.observation, screen)
        record["agent_error"] = output.error
        self.agent_error = output.error
        self.trajectory.append(record)

    def finish(self) -> dict[str, Any]:
        """Judge the episode, release the phone and return its episodes.jsonl record."""
        env = self.play.env
        final_screen = self._save_screen(self.play.observation, "final")
        try:
            judgement = env.judge()
        finally:
            env.close()
        verdict = replace(judgement.verdict, self_corrections=self_corrections(self.play.turns))
        return {
            **episode_fields(self.play.episode),
            "budget": env.budget,
            "truncated": env.truncated,
            "steps": self.trajectory,
            "final_screenshot": final_screen,
            "verdict": verdict.to_dict(),
            "judgement": judgement.details(),
            "seconds": round(time.perf_counter() - self.started, 4),
        }

    def fail(self, error: InfraError) -> dict[str, Any]:
        """The record of an episode whose phone failed: the steps so far and what failed, no verdict."""
        try:
            self.play.env.close()
        except Exception:  # the phone is already gone
            pass
        return infra_record(self.play.episode, error, self.trajectory, time.perf_counter() - self.started)


def episode_fields(episode: EpisodeRef) -> dict[str, Any]:
    """What a run's episode record says about the episode itself."""
    return {
        "id": episode.id,
        "task": episode.task,
        "instruction": episode.instruction,
        "category": episode.category,
        "subcategory": episode.subcategory,
        "split": episode.split,
        "seed": episode.seed,
        "apps": list(episode.apps),
    }


def infra_record(episode: EpisodeRef, error: InfraError, steps: list[dict[str, Any]] | None = None,
                 seconds: float = 0.0) -> dict[str, Any]:
    return {**episode_fields(episode), "steps": steps or [], "verdict": None, "infra_error": str(error),
            "seconds": round(seconds, 4)}


def advance_runs(runs: Sequence[EpisodeRun], outputs: Sequence[AgentOutput]) -> list[InfraError | None]:
    """One turn of many episodes, their phones stepped together: None for each turn played and recorded (or ended by
    an agent error), the `InfraError` of a phone that failed."""
    screens = [run._save_screen(run.play.observation, len(run.trajectory)) for run in runs]
    out: list[InfraError | None] = [None] * len(runs)
    playing = [k for k, output in enumerate(outputs) if output.error is None]
    for k, output in enumerate(outputs):
        if output.error is not None:
            runs[k].record_agent_error(output, screens[k])
    turns = advance_many([runs[k].play for k in playing], [outputs[k] for k in playing])
    for k, turn in zip(playing, turns):
        if isinstance(turn, InfraError):
            out[k] = turn
        else:
            runs[k].record(outputs[k], turn, screens[k])
    return out


def start_runs(episodes: Sequence[EpisodeRef], config: EvalConfig, run_dir: Path | None, backend: Backend,
               on_done: Callable[[dict[str, Any]], None]) -> list[EpisodeRun]:
    """Open and reset a phone for each episode, all together; an episode whose phone fails is recorded as such."""
    started = time.perf_counter()
    opened: list[tuple[EpisodeRef, TaskEnv]] = []
    for episode in episodes:
        try:
            opened.append((episode, backend.open(episode, max_steps=config.max_steps)))
        except InfraError as exc:
            on_done(infra_record(episode, exc))
    runs = []
    for (episode, env), reset in zip(opened, reset_many([env for _, env in opened])):
        if isinstance(reset, InfraError):
            try:
                env.close()
            except Exception:  # the phone is already gone
                pass
            on_done(infra_record(episode, reset))
        else:
            runs.append(EpisodeRun(env, config, run_dir, started))
    return runs


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


def run_batch(agent: Agent, episodes: Sequence[EpisodeRef], config: EvalConfig, run_dir: Path | None,
              on_done: Callable[[dict[str, Any]], None], backend: Backend) -> None:
    """Run `episodes` with up to `config.workers` of them in flight, one `act_batch` call per turn."""
    pending = list(episodes)
    active: list[EpisodeRun] = []
    while pending or active:
        room = max(0, config.workers - len(active))
        starting, pending = pending[:room], pending[room:]
        new = start_runs(starting, config, run_dir, backend, on_done)
        for run in new:
            agent.reset(run.id)
        try:
            agent.start_episodes([(run.play.episode, run.play.env) for run in new])
        except InfraError:  # some phone failed: start them one by one to tell which
            new = _start_each(agent, new, on_done)
        active.extend(new)
        if not active:
            continue
        outputs = agent.act_batch([run.request() for run in active])
        if len(outputs) != len(active):
            raise ConfigError(f"agent {config.agent!r} answered {len(outputs)} of {len(active)} requests")
        still: list[EpisodeRun] = []
        for run, error in zip(active, advance_runs(active, outputs)):
            try:
                if error is not None:
                    on_done(run.fail(error))
                elif run.done:
                    on_done(run.finish())
                else:
                    still.append(run)
            except InfraError as exc:
                on_done(run.fail(exc))
        active = still


def _start_each(agent: Agent, runs: Sequence[EpisodeRun], on_done: Callable[[dict[str, Any]], None]) -> list[EpisodeRun]:
    started = []
    for run in runs:
        try:
            agent.start_episode(run.play.episode, run.play.env)
            started.append(run)
        except InfraError as exc:
            on_done(run.fail(exc))
    return started


def build_agent(config: EvalConfig, episode: EpisodeRef | None = None) -> Agent:
    """The configured agent (for re-seeded kinds, seeded for `episode`)."""
    options = config.agent_kwargs()
    if episode is not None and config.agent_kind in RESEEDED_KINDS:
        options["seed"] = episode_seed(config.seed, episode.id)
    return make_agent(config.agent, **options)


class EpisodeAgents(Agent):
    """One agent per episode, each built for its episode (`build_agent(config, episode)`: the re-seeded kinds), so
    that episodes in flight together play exactly as they would one by one."""

    def __init__(self, config: EvalConfig) -> None:
        self.config = config
        self.agents: dict[str, Agent] = {}
        self.name = config.agent

    def start_episodes(self, started: Sequence[tuple[EpisodeRef, TaskEnv]]) -> None:
        for episode, env in started:
            self.reset(episode.id)
            agent = self.agents[episode.id] = build_agent(self.config, episode)
            agent.start_episode(episode, env)

    def start_episode(self, episode: EpisodeRef, env: TaskEnv) -> None:
        self.start_episodes([(episode, env)])

    def act_batch(self, requests: Sequence[AgentRequest]) -> list[AgentOutput]:
        out = []
        for request in requests:
            agent = self.agents.get(request.episode_id or "")
            if agent is None:
                raise ConfigError(f"no agent was started for episode {request.episode_id!r}")
            out.append(agent.act(request))
        return out

    def reset(self, episode_id: str | None = None) -> None:
        for key in list(self.agents) if episode_id is None else [episode_id]:
            agent = self.agents.pop(key, None)
            if agent is not None:
                agent.close()

    def close(self) -> None:
        self.reset()


def run_one(episode: EpisodeRef, config: EvalConfig, run_dir: Path | None, backend: Backend,
            agent: Agent | None = None) -> dict[str, Any]:
    """Run and judge one episode with its own (or the given) agent; returns its record."""
    own = agent is None or config.agent_kind in RESEEDED_KINDS
    use = build_agent(config, episode) if own else agent
    assert use is not None
    records: list[dict[str, Any]] = []
    try:
        run_batch(use, [episode], replace_workers(config, 1), run_dir, records.append, backend)
    finally:
        if own and use is not agent:
            use.close()
    return records[0]


def replace_workers(config: EvalConfig, workers: int) -> EvalConfig:
    from dataclasses import replace

    return replace(config, workers=workers)


# ----- worker processes -------------------------------------------------------------------------------------------
_WORKER: dict[str, Any] = {}


def _worker_init(config: EvalConfig, run_dir: str | None) -> None:
    _WORKER["config"] = config
    _WORKER["run_dir"] = Path(run_dir) if run_dir else None
    _WORKER["backend"] = config.backend()
    _WORKER["agent"] = None if config.agent_kind in RESEEDED_KINDS else build_agent(config)


def _worker_run(episode: EpisodeRef) -> dict[str, Any]:
    return run_one(episode, _WORKER["config"], _WORKER["run_dir"], _WORKER["backend"], _WORKER["agent"])


# ----- the run directory ----------------------------------------------------------------------------------------
class EpisodeLog:
    """episodes.jsonl: whole-line appends (one write + flush + fsync under a lock) and a torn-line-tolerant reader."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()

    def read(self, repair: bool = False) -> list[dict[str, Any]]:
        """Every complete record; a torn last line (no newline, or not JSON) is ignored (and cut off if `repair`)."""
        if not self.path.exists():
            return []
        raw = self.path.read_bytes()
        records: list[dict[str, Any]] = []
        good = 0
        offset = 0
        for number, line in enumerate(raw.splitlines(keepends=True), start=1):
            end = offset + len(line)
            complete = line.endswith(b"\n")
            try:  # the shared reader: not UTF-8, not JSON, too deep or a number out of range is a damaged line
                where = Where(self.path, number)
                record = loads(decode(line, where), where) if complete and line.strip() else None
            except MobileR1Error:
                record = None
            if record is None and line.strip():
                if end < len(raw):
                    raise DataError(f"{self.path}: a damaged line in the middle of the file (byte {offset}); "
                                    "only the last line may be torn. Remove the damaged line and run again")
                break
            if record is not None:
                records.append(record)
            good = end
            offset = end
        if repair and good < len(raw):
            with open(self.path, "r+b") as f:
                f.truncate(good)
                f.flush()
                os.fsync(f.fileno())
        return records

    def append(self, record: dict[str, Any]) -> None:
        # a lone surrogate (a model's text can hold one) is written as its escape rather than failing the write
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")
        with self.lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX)
                written = os.write(fd, data)
                if written != len(data):
                    raise OSError(f"short write to {self.path}")
                os.fsync(fd)
            finally:
                os.close(fd)


def verdicts_of(records: Iterable[dict[str, Any]]) -> list[EpisodeVerdict]:
    """The verdicts of episode records (each carries a "verdict" object; records of infrastructure failures, which
    carry none, are left out)."""
    out = []
    for number, r in enumerate(records, start=1):
        if not isinstance(r, dict):
            raise DataError(f"episode record {number}: expected an object with a 'verdict' object")
        if r.get("infra_error") is not None:
            continue
        if not isinstance(r.get("verdict"), dict):
            raise DataError(f"episode record {number}: expected an object with a 'verdict' object")
        data = dict(r["verdict"])
        data.setdefault("episode_id", r.get("id"))
        out.append(EpisodeVerdict.from_dict(data))
    return out


def load_run(run_dir: Path, infra: bool = False) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A run directory's options (run.json) and its episode records: the last record of each episode, in the order
    they were first written; those of infrastructure failures only with `infra=True`."""
    run_dir = Path(run_dir)
    if not (run_dir / EPISODES_FILE).exists():
        raise DataError(f"{run_dir} holds no {EPISODES_FILE}; pass a folder written by 'mobile-r1 eval --out'")
    options = read_json(run_dir / RUN_FILE) if (run_dir / RUN_FILE).exists() else {}
    return options, latest_records(EpisodeLog(run_dir / EPISODES_FILE).read(), infra)


def latest_records(records: Iterable[dict[str, Any]], infra: bool = False) -> list[dict[str, Any]]:
    """The last record of each episode id (a resumed run appends a new one after an infrastructure failure)."""
    latest: dict[str, dict[str, Any]] = {}
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict):
            raise DataError(f"episode record {number}: expected an object with a 'verdict' object")
        latest.pop(str(record.get("id")), None)
        latest[str(record.get("id"))] = record
    return [r for r in latest.values() if infra or r.get("infra_error") is None]


def _open_run_dir(config: EvalConfig) -> tuple[Path | None, EpisodeLog | None, list[dict[str, Any]]]:
    if config.out is None:
        if config.resume:
            raise ConfigError("--resume needs --out RUN_DIR (the run to continue)")
        return None, None, []
    run_dir = make_dir(Path(config.out))
    log = EpisodeLog(run_dir / EPISODES_FILE)
    previous = log.read(repair=config.resume)
    run_file = run_dir / RUN_FILE
    if config.resume:
        if run_file.exists():
            old = json.loads(run_file.read_text(encoding="utf-8"))
            new = config.resolved()
            diff = [k for k in RESUME_KEYS if old.get(k) != new.get(k)]
            if diff:
                raise ConfigError(f"{run_dir} was run with other options ({', '.join(diff)}: "
                                  f"{', '.join(repr(old.get(k)) for k in diff)}); resume with the same options")
    elif previous or run_file.exists():
        raise ConfigError(f"{run_dir} already holds a run; pass --resume to continue it or choose another --out")
    write_json(run_file, config.resolved())
    return run_dir, log, previous


def run_eval(config: EvalConfig, progress: Callable[[int, int, dict[str, Any] | None], None] | None = None,
             backend: Backend | None = None) -> EvalResult:
    """Run (or resume) an evaluation; `progress(done, total, record)` is called at the start and after each episode.
    `backend` plays on a backend the caller holds (and closes) instead of the one `config` names."""
    config.validate()
    started = time.perf_counter()
    if backend is not None:
        return _prepare_and_run(config, backend, started, progress)
    own = config.backend()
    try:
        return _prepare_and_run(config, own, started, progress)
    finally:
        own.close()


def _prepare_and_run(config: EvalConfig, backend: Backend, started: float,
                     progress: Callable[[int, int, dict[str, Any] | None], None] | None) -> EvalResult:
    if backend.max_in_play is not None and config.workers > backend.max_in_play:
        raise ConfigError(f"the '{backend.name}' phone plays {backend.max_in_play} episode(s) at a time; "
                          f"use --workers {backend.max_in_play}")
    tasks = suite_episodes(config, backend)
    agent = build_agent(config)  # its options are checked before anything is written: a typo leaves no run folder
    try:
        return _run(config, backend, agent, tasks, started, progress)
    finally:
        agent.close()


def _run(config: EvalConfig, backend: Backend, agent: Agent, tasks: list[EpisodeRef], started: float,
         progress: Callable[[int, int, dict[str, Any] | None], None] | None) -> EvalResult:
    run_dir, log, previous = _open_run_dir(config)
    wanted = {t.id for t in tasks}
    finished = {r["id"]: r for r in latest_records(previous) if r.get("id") in wanted}
    todo = [t for t in tasks if t.id not in finished]
    records: dict[str, dict[str, Any]] = dict(finished)
    total = len(tasks)
    if progress:
        progress(len(records), total, None)

    def on_done(record: dict[str, Any]) -> None:
        if record["id"] in records:
            return
        records[record["id"]] = record
        if log is not None:
            log.append(record)
        if progress:
            progress(len(records), total, record)

    kind = config.agent_kind
    remote = backend.remote_workers() if todo else 0
    if not todo:
        pass
    elif remote or kind in BATCHED_KINDS or kind in SERIAL_KINDS or config.workers == 1 or len(todo) == 1:
        # here, one turn of `workers` episodes at a time (at least one per remote worker: their phones step together)
        workers = 1 if kind in SERIAL_KINDS else max(config.workers, remote)
        if kind in RESEEDED_KINDS:  # one agent per episode, seeded for it
            per_episode = EpisodeAgents(config)
            try:
                run_batch(per_episode, todo, replace_workers(config, workers), run_dir, on_done, backend)
            finally:
                per_episode.close()
        else:
            run_batch(agent, todo, replace_workers(config, workers), run_dir, on_done, backend)
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(config.workers, len(todo)), mp_context=context,
                                 initializer=_worker_init, initargs=(config, str(run_dir) if run_dir else None)) as pool:
            futures = [pool.submit(_worker_run, task) for task in todo]
            for future in as_completed(futures):
                on_done(future.result())
    ordered = [records[t.id] for t in tasks if t.id in records]
    verdicts = verdicts_of(ordered)
    failed = [r["id"] for r in ordered if r.get("infra_error") is not None]
    report = summarize(verdicts)
    needs = needs_inquiry_summary(verdicts)
    if run_dir is not None:
        write_json(run_dir / METRICS_FILE, {"agent": config.agent, "env": config.env, "suite": config.suite,
                                            "split": config.split, "episodes": len(verdicts),
                                            "infra_errors": len(failed), **report.to_dict(),
                                            "needs_inquiry": needs.to_dict() if needs else None})
    return EvalResult(report, verdicts, run_dir, ran=len(todo), skipped=len(finished),
                      seconds=time.perf_counter() - started, needs_inquiry=needs, infra_errors=failed)


def needs_inquiry_summary(verdicts: Sequence[EpisodeVerdict]) -> MetricSummary | None:
    """Metrics over the episodes whose task needed a question (InquireMobile's ISR is over these alone)."""
    group = [v for v in verdicts if v.inquiry_needed]
    return MetricSummary.of(group) if group else None


__all__ = ["EvalConfig", "EvalResult", "EpisodeRun", "EpisodeLog", "run_eval", "run_batch", "run_one",
           "suite_episodes", "load_run", "latest_records", "verdicts_of", "safe_name", "needs_inquiry_summary"]
