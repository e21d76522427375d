"""The `androidworld` backend: episodes played on an AndroidWorld server (its docker image, or our simulated phone
served with its API), through AndroidWorld's HTTP API, as a `Backend` (`AndroidWorldBackend`) and the `TaskEnv` it
opens (`AndroidWorldTaskEnv`).

    backend = make_backend("androidworld:http://127.0.0.1:5000", timeout=60)
    episodes = backend.episodes("androidworld", "test", n=20, seed=30)   # AndroidWorld's 116 tasks, round-robin
    env = backend.open(episodes[0])                                      # reset: reinitialize, goal, reset, initialize

Which episodes `episodes(suite, split, n, seed, tasks)` lists:

- `suite` "androidworld" (or None) is AndroidWorld's whole suite, its task family `android_world`; any other name
  is passed on as a task family (`android`, `information_retrieval`, `miniwob`, ...; on our server `nav-sim/train`).
  The server builds the suite (`suite/reinitialize` with `task_family`, `seed` and `n_task_combinations`, the
  backend option, default 1); its task types in its order (alphabetical), `task_idx` 0 of every type first, then
  1, ... so `n` takes a balanced prefix; `tasks` keeps only those task types. AndroidWorld has no splits: `split`
  must be "test". Episode ids are `TASK/sSEED/IDX`, the instruction is `task/goal`, and the budget follows
  AndroidWorld's convention, int(10 x the task's complexity) (`tasks.json`, read from AndroidWorld's task classes;
  the `complexity` option adds or overrides entries, `default_complexity` covers tasks it does not know).
- `suite` one of our suites (`nav-sim`, `inquire-sim`) on our simulated phone's server: the episodes the `sim`
  backend lists for (suite, split, n, seed), with the same ids, instructions and budgets, each found on the server
  as task type = its task id, task_idx = its place among that task's episodes in the split (the server's task family
  `SUITE/SPLIT`); `tasks` keeps those task types of the split. On these the expert can demonstrate (EXPERT): it plans
  on a local simulated phone that performs every action as the server will, so its plan replays exactly. Our suites,
  their episodes and the expert come through `env.task_source` (the source `OUR_PHONE`, `via="androidworld"`): this
  module never imports the simulator.

An episode: `reset` re-initialises the suite (AndroidWorld refuses to initialise a task instance twice; this also
puts back a suite a restarted server lost), checks that `task/goal` still reads the episode's instruction, sends
`reset?go_home=true` and `task/initialize`; `step` sends the action as a JSON action (`wire.to_json_action`) and
observes (`screenshot`, and our server's `/ui_elements`); `judge` reads `task/score`: success when the agent ended the
episode and the score is 1.0 (AndroidWorld counts a task only when the agent declared it done; a composite task's
fraction is kept as the score, 0-4 = 4 x fraction); `close` tears the task down. `call_user` reaches no one
(AndroidWorld has no user): the step changes nothing and says so. AndroidWorld's server sends no UI tree, so its
observations carry the screenshot and no elements (`Observation.elements_missing` says why; text-only agents stop
with that message). A server holds one phone: one episode is in play at a time (`max_in_play = 1`: `mobile-r1 eval`
refuses `--workers` > 1, and a second episode reset while another is in play in this process is refused).
"""

from __future__ import annotations

import json
import weakref
from dataclasses import replace
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.errors import ActionError, ConfigError, EnvError, InfraError, MobileR1Error
from mobile_r1.core.records import Observation
from mobile_r1.core.verdict import EpisodeVerdict, Judgement
from mobile_r1.env.androidworld.client import DEFAULT_RECONNECT, DEFAULT_SETUP_TIMEOUT, DEFAULT_TIMEOUT, AndroidWorldClient
from mobile_r1.env.androidworld.wire import element_from_wire, to_json_action
from mobile_r1.env.protocol import Backend, Capability, Demonstration, EpisodeRef, StepInfo, TaskEnv
from mobile_r1.env.registry import register_backend
from mobile_r1.env.task_source import OUR_PHONE, TaskSource, task_source

if TYPE_CHECKING:
    from httpx import BaseTransport

NAME = "androidworld"
SUITE = "androidworld"  # our name for AndroidWorld's whole suite
FAMILY = "android_world"  # AndroidWorld's name for it
FAMILIES = ("android_world", "android", "information_retrieval", "miniwob", "miniwob_subset")
STEPS_PER_COMPLEXITY = 10  # AndroidWorld's budget: int(10 * complexity)
# The episode in play on each server (URL) in this process: a server holds one phone.
_PLAYING: weakref.WeakValueDictionary[str, AndroidWorldTaskEnv] = weakref.WeakValueDictionary()
NO_TREE = "AndroidWorld's server sends screenshots only, no UI tree"
NO_USER = "call_user: AndroidWorld has no user to answer; nothing was sent to the phone"


def packaged_tasks() -> dict[str, dict[str, Any]]:
    """AndroidWorld's tasks as packaged here: {task type: {"complexity": float, "difficulty": str}}."""
    text = resources.files("mobile_r1.env.androidworld").joinpath("tasks.json").read_text(encoding="utf-8")
    return dict(json.loads(text)["tasks"])


def _complexities(option: str | Mapping[str, Any] | None) -> dict[str, float]:
    table = {name: float(info["complexity"]) for name, info in packaged_tasks().items()}
    if option is None:
        return table
    if isinstance(option, Mapping):
        data: Any = option
    else:
        path = Path(option)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"complexity: cannot read {path} as JSON ({exc})") from None
    if not isinstance(data, Mapping):
        raise ConfigError("complexity: expected an object {task type: complexity}")
    for name, value in dict(data.get("tasks", data)).items():
        value = value.get("complexity") if isinstance(value, Mapping) else value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise ConfigError(f"complexity of {name!r} must be a positive number, got {value!r}")
        table[str(name)] = float(value)
    return table


class AndroidWorldBackend(Backend):
    """A client of one AndroidWorld server (see the module docstring).

    url                  the server, e.g. http://127.0.0.1:5000 (AndroidWorld's docker image listens on 5000)
    render, scale        screenshots in observations, scaled to `scale` x the screen size (the agent's image)
    timeout              seconds for a request (observations, actions, scores); setup_timeout for set-ups
    reconnect            seconds to keep trying while the server refuses connections (it is restarting)
    n_task_combinations  instances per task type in AndroidWorld's suite (its run.py's default: 1)
    complexity           a JSON file (or a mapping) {task type: complexity} added to the packaged table
    default_complexity   for task types the table does not know (MiniWoB's tasks have 3)
    wait_to_stabilize    ask the server to wait for a still screen before each screenshot
    close_server         POST /close when the backend closes (AndroidWorld then lets its emulator go)
    transport            an httpx transport (tests)
    """

    name = NAME
    max_in_play = 1  # a server holds one phone

    def __init__(self, url: str | None, render: bool = True, scale: float = 0.3, xml: bool = False,
                 timeout: float = DEFAULT_TIMEOUT, setup_timeout: float = DEFAULT_SETUP_TIMEOUT,
                 reconnect: float = DEFAULT_RECONNECT, n_task_combinations: int = 1, complexity: str | Mapping[str, Any] | None = None,
                 default_complexity: float = 3.0, wait_to_stabilize: bool = False, close_server: bool = False,
                 transport: BaseTransport | None = None) -> None:
        if not url or not url.startswith(("http://", "https://")):
            raise ConfigError(f"the androidworld environment needs the server's URL: --env androidworld:http://HOST:PORT "
                              f"(got {url!r}); start one with AndroidWorld's docker image or `mobile-r1 sim serve "
                              "--api androidworld`")
        if not scale > 0:
            raise ConfigError(f"scale must be > 0, got {scale}")
        if not timeout > 0 or not setup_timeout > 0 or reconnect < 0:
            raise ConfigError("timeout and setup_timeout must be > 0 seconds, reconnect >= 0")
        if n_task_combinations < 1:
            raise ConfigError(f"n_task_combinations must be >= 1, got {n_task_combinations}")
        if not default_complexity > 0:
            raise ConfigError(f"default_complexity must be > 0, got {default_complexity}")
        self.url = url.rstrip("/")
        self.render, self.scale = render, scale
        self.timeout, self.setup_timeout, self.reconnect = float(timeout), float(setup_timeout), float(reconnect)
        self.n_task_combinations = int(n_task_combinations)
        self.complexity = _complexities(complexity)
        self.default_complexity = float(default_complexity)
        self.wait_to_stabilize, self.close_server = bool(wait_to_stabilize), bool(close_server)
        self._transport = transport
        self._client: AndroidWorldClient | None = None
        self._simulated: bool | None = None
        self._tasks: TaskSource | None = None

    @property
    def client(self) -> AndroidWorldClient:
        if self._client is None:
            self._client = AndroidWorldClient(self.url, self.timeout, self.setup_timeout, self.reconnect,
                                              transport=self._transport)
        return self._client

    @property
    def simulated(self) -> bool:
        """Whether the server is our simulated phone (it answers `/ui_elements`); asked once."""
        if self._simulated is None:
            self._simulated = self.client.ui_elements() is not None
        return self._simulated

    def suites(self) -> list[str]:
        return [SUITE, *FAMILIES]

    def budget(self, task_type: str) -> int:
        """AndroidWorld's step budget for a task type: int(10 x complexity)."""
        return max(1, int(STEPS_PER_COMPLEXITY * self.complexity.get(task_type, self.default_complexity)))

    # ----- episodes ------------------------------------------------------------------------------------------------
    def episodes(self, suite: str | None, split: str = "test", n: int | None = None, seed: int = 0,
                 tasks: Sequence[str] = ()) -> list[EpisodeRef]:
        if n is not None and n < 1:
            raise ConfigError(f"n must be >= 1, got {n}")
        try:
            self.client.health()
        except InfraError as exc:
            raise InfraError(f"{exc} Start one: AndroidWorld's docker image (docker run --privileged -p 5000:5000 -it "
                             "android_world:latest) or our simulated phone (mobile-r1 sim serve --api androidworld "
                             "--port 5000)") from None
        if suite is not None and suite not in (SUITE, *FAMILIES) and suite in self.task_source().suites():
            if not self.simulated:
                raise ConfigError(f"{suite!r} is a suite of our simulated phone; the server at {self.url} is "
                                  f"AndroidWorld's, whose suites are {SUITE!r} (all its tasks) or a task family: "
                                  f"{', '.join(FAMILIES)}")
            return self._sim_episodes(suite, split, n, seed, tasks)
        if split != "test":
            raise ConfigError(f"AndroidWorld's tasks have no {split!r} split; use --split test")
        return self._family_episodes(suite or SUITE, n, seed, tasks)

    def _family_episodes(self, suite: str, n: int | None, seed: int, tasks: Sequence[str]) -> list[EpisodeRef]:
        family = FAMILY if suite == SUITE else suite
        combinations = self.n_task_combinations
        try:
            self.client.reinitialize(combinations, seed, family)
        except EnvError as exc:
            raise ConfigError(f"suite {suite!r}: {exc}") from None
        types = self.client.task_list(-1)
        if tasks:
            missing = sorted(set(tasks) - set(types))
            if missing:
                raise ConfigError(f"task type(s) {missing} are not in {family}; it has {len(types)}, e.g. "
                                  f"{', '.join(types[:3])}")
            types = [t for t in types if t in set(tasks)]
        lengths = {t: self.client.task_length(t) for t in types}
        order = [(t, i) for i in range(max(lengths.values(), default=0)) for t in types if i < lengths[t]]
        if n is not None:
            order = order[:n]
        known = packaged_tasks()
        refs = []
        for task_type, index in order:
            refs.append(EpisodeRef(
                id=f"{task_type}/s{seed}/{index}", instruction=self.client.goal(task_type, index), task=task_type,
                backend=NAME, split="test", seed=seed, suite=suite, category="navigation",
                subcategory=known.get(task_type, {}).get("difficulty"), max_steps=self.budget(task_type),
                needs_inquiry=False,
                meta={"task_type": task_type, "task_idx": index, "task_family": family, "suite_seed": seed,
                      "n_task_combinations": combinations, "goal_template": self.client.template(task_type, index)}))
        return refs

    def task_source(self) -> TaskSource:
        """Our simulated phone's suites and expert (`env.task_source`)."""
        if self._tasks is None:
            self._tasks = task_source(OUR_PHONE)
        return self._tasks

    def _sim_episodes(self, suite: str, split: str, n: int | None, seed: int, tasks: Sequence[str]) -> list[EpisodeRef]:
        whole = self.task_source().episodes(suite, split, None, seed)
        if n is not None and n > len(whole):
            raise ConfigError(f"{suite}/{split} has {len(whole)} episodes on the server; ask for at most that many")
        place: dict[str, int] = {}
        found = []
        for ref in whole:
            index = place.get(ref.task, 0)
            place[ref.task] = index + 1
            if tasks and ref.task not in tasks:
                continue
            found.append((ref, index))
        found = found[:n] if n is not None else found
        combinations = max((index + 1 for _, index in found), default=1)
        family = f"{suite}/{split}"
        return [replace(ref, backend=NAME, meta={**ref.meta, "sim": True, "task_type": ref.task, "task_idx": index,
                                                 "task_family": family, "suite_seed": seed,
                                                 "n_task_combinations": combinations})
                for ref, index in found]

    def open(self, episode: EpisodeRef, max_steps: int | None = None) -> AndroidWorldTaskEnv:
        self._check_ref(episode)
        for key in ("task_type", "task_idx", "task_family", "suite_seed", "n_task_combinations"):
            if key not in episode.meta:
                raise ConfigError(f"episode {episode.id}: its meta lacks {key!r}; list episodes with this backend")
        return AndroidWorldTaskEnv(self, episode, max_steps)

    def close(self) -> None:
        if self._client is not None:
            try:
                if self.close_server:
                    self._client.close_env()
            finally:
                self._client.close()
                self._client = None


class AndroidWorldTaskEnv(TaskEnv):
    """One AndroidWorld task instance on the server's phone (see the module docstring)."""

    def __init__(self, backend: AndroidWorldBackend, episode: EpisodeRef, max_steps: int | None = None) -> None:
        super().__init__(episode, max_steps)
        self.backend = backend
        meta = episode.meta
        self.task_type, self.task_idx = str(meta["task_type"]), int(meta["task_idx"])  # type: ignore[call-overload]
        self.initialized = False
        self.questions: list[int] = []
        self.sim_ref = bool(meta.get("sim"))

    @cached_property
    def capabilities(self) -> frozenset[Capability]:  # type: ignore[override]
        """STATE_KEY on our simulated phone's server; EXPERT there too for our suites' episodes."""
        if not self.backend.simulated:
            return frozenset()
        return frozenset({Capability.STATE_KEY, Capability.EXPERT} if self.sim_ref else {Capability.STATE_KEY})

    @property
    def client(self) -> AndroidWorldClient:
        return self.backend.client

    # ----- the protocol --------------------------------------------------------------------------------------------
    def _reset(self) -> Observation:
        meta = self.episode.meta
        self._tear_down()
        playing = _PLAYING.get(self.backend.url)
        if playing is not None and playing is not self and playing.initialized:
            raise ConfigError(f"episode {playing.episode.id} is still in play on {self.backend.url}, which holds one "
                              f"phone: close it before starting {self.episode.id} (--workers 1)")
        _PLAYING[self.backend.url] = self
        self.questions = []
        self.client.reinitialize(int(meta["n_task_combinations"]), int(meta["suite_seed"]),  # type: ignore[call-overload]
                                 str(meta["task_family"]))
        goal = self.client.goal(self.task_type, self.task_idx)
        if goal != self.episode.instruction:
            raise EnvError(f"episode {self.episode.id}: the server's task {self.task_type} #{self.task_idx} now reads "
                           f"{goal!r}, not {self.episode.instruction!r}; the server holds other tasks than when the run "
                           "started (another AndroidWorld version or task set): start a new run")
        self.client.reset(go_home=True)
        self.client.initialize_task(self.task_type, self.task_idx)
        self.initialized = True
        try:
            return self._observe()
        except MobileR1Error:
            self.close()  # an episode that never started holds nothing
            raise

    def _observe(self) -> Observation:
        backend = self.backend
        state = self.client.ui_elements(backend.wait_to_stabilize) if backend.simulated else None
        shot = None
        if backend.render or state is None:  # a real server's screenshot is all there is (and gives the screen size)
            shot = self.client.screenshot(backend.wait_to_stabilize)
        if state is not None:
            screen = state.screen_size
            elements = [element_from_wire(e, i) for i, e in enumerate(state.ui_elements)]
        else:
            screen, elements = shot.size, []  # type: ignore[union-attr]
        image = None
        if shot is not None and backend.render:
            image = shot.image()
            size = (max(1, round(screen[0] * backend.scale)), max(1, round(screen[1] * backend.scale)))
            if image.size != size:
                from PIL import Image

                image = image.resize(size, Image.Resampling.BILINEAR)
        return Observation(screen, elements, screenshot=image,
                           app=state.app if state else None, activity=state.activity if state else None,
                           state_key=state.state_key if state else None,
                           elements_missing=None if state is not None else NO_TREE)

    def _step(self, action: Action) -> tuple[Observation, bool, StepInfo]:
        assert self.observation is not None
        if action.type is ActionType.CALL_USER:
            self.questions.append(self.steps)
            return self.observation, False, StepInfo(error=NO_USER)
        try:
            json_action = to_json_action(action, self.observation.elements)
        except ActionError as exc:
            return self.observation, False, StepInfo(error=f"{exc}; nothing was sent to the phone")
        self.client.execute_action(json_action)
        terminated = action.type is ActionType.TERMINATE
        return self._observe(), terminated, StepInfo(extra={"androidworld_action": json_action})

    def judge(self) -> Judgement:
        if not self.initialized:
            raise EnvError(f"episode {self.episode.id}: reset() before judge()")
        raw = self.client.score(self.task_type, self.task_idx)
        fraction = min(max(raw, 0.0), 1.0)
        done = self.terminated
        success = done and fraction >= 1.0
        needs = bool(self.episode.needs_inquiry)
        asked = bool(self.questions)
        inquiry = ("asked" if asked else "missed") if needs else ("over_asked" if asked else "not_needed")
        reason = f"AndroidWorld score {raw:g}"
        if not done:
            reason += "; the agent did not end the episode (AndroidWorld counts a task only when the agent declares it done)"
        verdict = EpisodeVerdict(
            self.episode.id, success, inquiry, over_asks=max(0, len(self.questions) - (1 if needs else 0)),  # type: ignore[arg-type]
            steps=self.steps, score=4.0 * fraction if done else 0.0, reason=reason, category=self.episode.category,
            subcategory=self.episode.subcategory, language=self.episode.language)
        return Judgement(verdict, judge="benchmark", asked_steps=list(self.questions), progress=fraction)

    def close(self) -> None:
        """Tear the task down (a failure to do so is not the episode's: its verdict stands)."""
        try:
            self._tear_down()
        except MobileR1Error:
            self.initialized = False

    def _tear_down(self) -> None:
        if self.initialized:
            self.initialized = False
            self.client.tear_down_task(self.task_type, self.task_idx)

    def expert_demo(self, *, ask: bool = True, self_correct: float = 0.0, seed: int = 0,
                    render: bool = False, search_first: bool = False) -> Demonstration:
        """(EXPERT, our suites' episodes on our simulated phone's server) The expert's demonstration, planned on a
        local simulated phone that performs each action as the server does through AndroidWorld's API."""
        self.require(Capability.EXPERT, "expert_demo()")
        return self.backend.task_source().expert_demo(self.episode, via="androidworld", ask=ask,
                                                      self_correct=self_correct, seed=seed, render=render,
                                                      scale=self.backend.scale, search_first=search_first)


def _factory(argument: str | None, render: bool = True, scale: float = 0.3, xml: bool = False,
             **options: Any) -> AndroidWorldBackend:
    return AndroidWorldBackend(argument, render=render, scale=scale, xml=xml, **options)


register_backend(NAME, _factory, replace=True)

__all__ = ["AndroidWorldBackend", "AndroidWorldTaskEnv", "packaged_tasks", "NAME", "SUITE", "FAMILIES", "NO_TREE",
           "NO_USER"]
