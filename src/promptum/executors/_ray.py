"""`RayExecutor`: a run's units in shards on Ray actors, results streamed back to the driver.

The driver (this process) keeps everything a run owns: the plan, recording (the runner's
`record`, which scrubs and feeds the sinks), resume and Ctrl-C. Each worker actor has its
own model client built from the run's options (and its own embedded model); a `Permits`
actor holds the limits of shared services, so N workers never make N times the calls a
provider allows. A worker that dies loses only work in progress: its unfinished units go
to the others, and every result already received stays recorded. The folders of the
modules loaded from beside the suites go with the job (Ray's ``py_modules``), and workers
import those modules under the driver's names, so the user's code works there as here.

Ray is imported only when a run starts; without it the executor cannot be created.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import importlib.util
import itertools
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import uuid
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from promptum.errors import ConfigError
from promptum.executors._ray_actors import Permits, ShardWorker, Unit
from promptum.foundations.user_code import SuiteModule, suite_modules
from promptum.providers import ClientOptions, ModelClient
from promptum.runner import Execution

MISSING = "--executor ray needs Ray, an optional extra: pip install 'promptum[ray]'"
SHARDS_PER_WORKER = 2
"""Shards a worker holds at once: the next is already running when one ends."""
_CLOSE_S = 10.0
"""How long a worker may take to close its client (committing cached answers)."""
_REACH_S = 5.0
"""How long a cluster's address may take to accept a connection."""
NOT_SHIPPED = (".git", ".promptum", ".venv", "venv", "__pycache__", ".pytest_cache")
"""Folders never sent with a suite's folder (Ray also leaves out what .gitignore lists)."""


def _ray() -> Any:
    """The ``ray`` module, or a `ConfigError` naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(MISSING) from None
    return ray


def _shipped_folders(modules: Sequence[SuiteModule]) -> dict[str, Any]:
    """The job's runtime environment: the folders of the suites' modules, as ``py_modules``.

    Ray uploads them once and unpacks them on each node that runs a worker, so workers import
    the modules from their own copy, on a cluster as on this machine.
    """
    folders = sorted({module.folder for module in modules})
    if not folders:
        return {}
    return {"py_modules": folders, "excludes": list(NOT_SHIPPED)}


@functools.cache
def _quiet_home() -> Path:
    """A HOME for the Ray processes promptum starts, which keeps Ray from asking the network.

    Ray's head process (its dashboard process, started even without the dashboard) asks the
    cloud metadata address and DNS which cloud it runs on, usage statistics on or off,
    unless it finds an autoscaler config at ``~/ray_bootstrap_config.yaml``: an empty one
    there stops it. One folder per process, kept until it exits: Ray writes its
    authentication token there at the first start and, holding it in memory, expects to
    find it there again when this process starts Ray another time.
    """
    folder = Path(tempfile.mkdtemp(prefix="promptum-ray-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    (folder / "ray_bootstrap_config.yaml").write_text("{}\n", encoding="utf-8")
    return folder


def _workers_home(folder: Path, caller_home: str | None) -> dict[str, str]:
    """The environment workers get back: the caller's HOME, and where Ray's token now is.

    A local Ray writes its authentication token under ``~/.ray`` of its own processes, here
    the quiet HOME; workers, back in the caller's HOME, are told where to read it.
    """
    variables = {"RAY_AUTH_TOKEN_PATH": str(folder / ".ray" / "auth_token")}
    if "RAY_AUTH_TOKEN_PATH" in os.environ:  # the caller's own choice, inherited as it is
        variables = {}
    if caller_home is not None:
        variables["HOME"] = caller_home
    return variables


@contextmanager
def quiet_local_ray(num_cpus: int | None = None) -> Iterator[Any]:
    """A local Ray instance started as promptum starts one; yields the `ray` module.

    Loopback only, no usage statistics, no cloud-metadata lookup (see `_quiet_home`): for
    code that runs several `RayExecutor` runs on one instance. Ray stops at the end.
    """
    _quiet_environment(local=True)
    ray = _ray()
    caller_home = os.environ.get("HOME")
    home = _quiet_home()
    os.environ["HOME"] = str(home)
    try:
        ray.init(
            num_cpus=num_cpus,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,
            runtime_env={"env_vars": _workers_home(home, caller_home)},
        )
    finally:
        _restore_home(caller_home)
    try:
        yield ray
    finally:
        ray.shutdown()


def _restore_home(home: str | None) -> None:
    if home is None:
        os.environ.pop("HOME", None)
    else:
        os.environ["HOME"] = home


def _options(execution: Execution) -> ClientOptions:
    """The run's client options, which workers copy; a key given in code is refused."""
    client = execution.client
    if not isinstance(client, ModelClient):
        raise ConfigError("the Ray executor needs the run's ModelClient to copy its options")
    for name, endpoint in client.options.endpoints.items():
        if endpoint.api_key is not None:
            raise ConfigError(
                f"endpoint {name!r} has its API key given in code; the Ray executor never "
                "sends keys to workers: set `api_key_env` to a variable set on every worker"
            )
    return client.options


def _shipped_options(options: ClientOptions, workers: int, index: int) -> ClientOptions:
    """A worker's copy of the options: its share of the run's retry budget."""
    budget = options.retry_budget
    if budget is None:
        return options
    # Split so the workers' budgets add up to the run's, as in one process.
    share = budget // workers + (1 if index < budget % workers else 0)
    return options.model_copy(update={"retry_budget": share})


@dataclass(frozen=True, slots=True)
class RayExecutor:
    """Runs units on Ray actors: a local Ray instance, or the cluster at `address`.

    `workers` defaults to the CPUs Ray has (each worker takes one; more wait until the
    cluster has room); `shard_size` to each model's limit of calls in flight (1 for the
    embedded model), so shards stay small enough to balance.
    """

    address: str | None = None
    """``auto``, ``ray://host:10001`` or ``host:6379``; None starts a local instance."""
    workers: int | None = None
    shard_size: int | None = None

    def __post_init__(self) -> None:
        for name in ("workers", "shard_size"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ConfigError(f"RayExecutor {name} must be at least 1, got {value}")
        if importlib.util.find_spec("ray") is None:
            raise ConfigError(MISSING)

    async def execute(self, execution: Execution) -> None:
        """Run every unit of `execution` on Ray, recording each result as it arrives."""
        shards = _shards(execution, self.shard_size)
        first = next(shards, None)
        if first is None:
            return
        options = _options(execution)
        modules = suite_modules()
        _quiet_environment(local=self.address is None)
        ray = _ray()
        started = self._connect(ray, modules)
        try:
            workers = self.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
            dispatch = _Dispatch(ray, execution, itertools.chain([first], shards), modules)
            await dispatch.run(options, workers)
        finally:
            if started:
                ray.shutdown()

    def _connect(self, ray: Any, modules: Sequence[SuiteModule]) -> bool:
        """Join Ray (or start it locally); True when this run started it and must stop it.

        An instance initialised by the caller is used as it is: its workers import the
        suites' modules from the folders on this machine. A local instance's own processes
        get `_quiet_home` as HOME; its workers get the caller's HOME back.
        """
        if ray.is_initialized():
            return False
        runtime_env = _shipped_folders(modules)
        settings: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "logging_level": logging.ERROR,
        }
        caller_home = os.environ.get("HOME")
        if self.address is None:
            settings["num_cpus"] = self.workers or os.cpu_count()
            runtime_env["env_vars"] = _workers_home(_quiet_home(), caller_home)
            # Inherited by the processes `ray.init` starts, and only by them.
            os.environ["HOME"] = str(_quiet_home())
        else:
            _check_reachable(self.address)
        if runtime_env:
            settings["runtime_env"] = runtime_env
        try:
            self._init(ray, settings)
        finally:
            _restore_home(caller_home)
        return True

    def _init(self, ray: Any, settings: dict[str, Any]) -> None:
        """`ray.init`, its failures a `ConfigError`, the run's SIGTERM handler kept."""
        main = threading.current_thread() is threading.main_thread()
        # Ray installs its own SIGTERM handler; the run's (stop gracefully) must stay.
        sigterm = signal.getsignal(signal.SIGTERM) if main else None
        try:
            ray.init(address=self.address, **settings)
        except (ConnectionError, ValueError, RuntimeError, ray.exceptions.RayError) as exc:
            where = f"the Ray cluster at {self.address}" if self.address else "a local Ray"
            raise ConfigError(f"cannot start or join {where}: {exc}") from None
        finally:
            if sigterm is not None:
                signal.signal(signal.SIGTERM, sigterm)


def _check_reachable(address: str) -> None:
    """Fail fast on a cluster address nobody answers at: Ray itself retries for minutes."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # `auto`, or a form Ray will judge itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=_REACH_S).close()
    except OSError as exc:
        raise ConfigError(
            f"cannot reach the Ray cluster at {address}: {exc.strerror or exc}; "
            "is the address right and the cluster running?"
        ) from None


def _quiet_environment(*, local: bool) -> None:
    """Set before Ray is imported, and inherited by the processes it starts."""
    # promptum talks to no host but the configured endpoints: no usage statistics.
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    if local and "ray" not in sys.modules:
        # Ray's switch for one machine: every process listens on, and finds its own address
        # through, the loopback interface instead of asking the network for the machine's.
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"


def _shards(execution: Execution, size: int | None) -> Iterator[list[Unit]]:
    """The run's units in shards, taking from each model in turn so models run side by side."""
    client = execution.client
    pending = [
        (
            model,
            execution.units(model),
            size or min(execution.concurrency, max(1, client.max_concurrency(model))),
        )
        for model in execution.models
    ]
    while pending:
        for entry in list(pending):
            model, units, count = entry
            shard = [(case, model, repeat) for case, repeat in itertools.islice(units, count)]
            if shard:
                yield shard
            else:
                pending.remove(entry)


@dataclass
class _Worker:
    """The driver's view of one worker actor."""

    name: str
    handle: Any
    shards: int = 0
    """Shards it holds now."""


@dataclass
class _Dispatch:
    """One run on Ray: the workers, the permits, and the shards still to hand out."""

    ray: Any
    execution: Execution
    shards: Iterator[list[Unit]]
    modules: Sequence[SuiteModule]
    """The modules loaded from beside the suites, which workers import under the same names."""
    retry: deque[list[Unit]] = field(default_factory=deque)
    """Units a dead worker did not finish, handed out before new shards."""
    live: list[_Worker] = field(default_factory=list)
    permits: Any = None
    death: str = ""
    """Why the last worker died, for the error when none is left."""

    async def run(self, options: ClientOptions, count: int) -> None:
        """Start the workers, hand out every shard, and stop them all at the end."""
        remote = self.ray.remote
        self.permits = remote(Permits).options(num_cpus=0).remote()
        token = uuid.uuid4().hex[:8]
        actor = remote(ShardWorker)
        for index in range(count):
            name = f"promptum-worker-{token}-{index}"
            handle = actor.options(name=name, num_cpus=1).remote(
                name,
                self._pickled(_shipped_options(options, count, index)),
                self.permits,
                self.execution.concurrency,
                list(sys.path),
                list(self.modules),
                self.execution.grade_timeout_s,
            )
            self.live.append(_Worker(name, handle))
        try:
            await self._ready()
            await self._dispatch()
        finally:
            await self._close()

    def _pickled(self, options: ClientOptions) -> bytes:
        """The options as the worker unpickles them, once it can import the suites' modules."""
        try:
            pickled: bytes = self.ray.cloudpickle.dumps(options)
        except Exception as exc:  # cloudpickle met something it cannot send
            raise ConfigError(
                f"a target cannot be sent to the Ray workers: {type(exc).__name__}: {exc}"
            ) from None
        return pickled

    async def _ready(self) -> None:
        try:
            await asyncio.gather(*(worker.handle.ready.remote() for worker in self.live))
        except self.ray.exceptions.RayActorError as exc:
            raise ConfigError(f"a Ray worker could not start: {exc}") from None

    def _next(self) -> list[Unit] | None:
        return self.retry.popleft() if self.retry else next(self.shards, None)

    def _fill(self, running: dict[asyncio.Task[None], _Worker]) -> None:
        """Hand out shards, least busy worker first, until each has its share or none is left."""
        while self.live and not self.execution.stopping.is_set():
            worker = min(self.live, key=lambda w: w.shards)
            if worker.shards >= SHARDS_PER_WORKER:
                return
            shard = self._next()
            if shard is None:
                return
            worker.shards += 1
            running[asyncio.create_task(self._stream(worker, shard))] = worker

    async def _dispatch(self) -> None:
        execution = self.execution
        running: dict[asyncio.Task[None], _Worker] = {}
        stop = asyncio.create_task(execution.stopping.wait())
        try:
            self._fill(running)
            while running and not stop.done():
                finished, _ = await asyncio.wait(
                    [*running, stop], return_when=asyncio.FIRST_COMPLETED
                )
                for task in running.keys() & finished:
                    running.pop(task).shards -= 1
                    task.result()  # a worker's failure other than dying is the run's
                if not self.live:
                    raise ConfigError(
                        f"every Ray worker died (last: {self.death}); the finished results "
                        "are kept: run the same command with --resume to finish"
                    )
                self._fill(running)
            if running:  # stopping: in-flight shards get the grace period
                await asyncio.wait(running, timeout=execution.grace_s)
        finally:
            stop.cancel()
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)

    async def _stream(self, worker: _Worker, shard: list[Unit]) -> None:
        """Record a shard's results as they arrive; if its worker dies, queue the rest."""
        ray = self.ray
        try:
            stream = worker.handle.run.remote(shard)
        except Exception as exc:  # cloudpickle met something it cannot send
            raise ConfigError(
                f"a case cannot be sent to the Ray workers: {type(exc).__name__}: {exc}"
            ) from None
        received: set[int] = set()
        try:
            async for reference in stream:
                position, result = await reference
                received.add(position)
                self.execution.record(result)
        except ray.exceptions.RayActorError as exc:
            self._lost(worker, str(exc).splitlines()[0])
            left = [unit for position, unit in enumerate(shard) if position not in received]
            if left:
                self.retry.append(left)
        except ray.exceptions.RayTaskError as exc:
            raise ConfigError(f"a Ray worker failed: {exc.cause!r}") from None
        except asyncio.CancelledError:
            ray.cancel(stream)
            raise

    def _lost(self, worker: _Worker, why: str) -> None:
        """Take a dead worker out of the run and give back the permits it held."""
        if worker in self.live:
            self.live.remove(worker)
            self.death = why
            self.execution.warn(
                f"Ray worker {worker.name} died ({why}); the results it sent are kept and "
                "its unfinished units went to the other workers"
            )
            self.permits.forget.remote(worker.name)

    async def _close(self) -> None:
        """Close every live worker's client (its cache notes become warnings), then end all."""
        ray = self.ray
        closing = [worker.handle.close.remote() for worker in self.live]
        notes: Sequence[Any] = ()
        if closing:
            try:
                notes = await asyncio.wait_for(asyncio.gather(*closing), _CLOSE_S)
            except (TimeoutError, ray.exceptions.RayError):
                notes = ()
        problems = {problem for problem, _ in notes if problem is not None}
        for problem in sorted(problems):
            self.execution.warn(problem)
        if skipped := sum(count for _, count in notes):
            self.execution.warn(
                f"{skipped} response{'s were' if skipped > 1 else ' was'} not cached because "
                f"{'they' if skipped > 1 else 'it'} contained a secret from a worker's environment"
            )
        for worker in self.live:
            ray.kill(worker.handle)
        if self.permits is not None:
            ray.kill(self.permits)
