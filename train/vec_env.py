"""A vectorized env that steps its envs in a few processes, the training process included.

stable-baselines3's ``SubprocVecEnv`` runs one process per env: with 8 envs on 2 cores that is
8 processes and 8 pipe round trips per step (16 with MaskablePPO's action-mask query), which
was slower than stepping everything in-process. ``GroupedVecEnv`` splits the envs into
``processes`` contiguous groups: group 0 is stepped by the calling process itself, each other
group by one worker process holding a ``DummyVecEnv``. A step sends the workers their actions,
steps group 0 meanwhile, then collects the workers' results, so on 2 cores the env stepping
runs on both. Each env is built and seeded exactly as in a ``DummyVecEnv``, so the
trajectories (and a training run) do not depend on ``processes``, as long as the envs share
nothing. A league's envs share the league: there each process holds a copy of it, kept in
step by :class:`train.league.LeagueSync`, whose runs are the same for any count of 2 or more.
"""

from __future__ import annotations

import multiprocessing as mp
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv
from stable_baselines3.common.vec_env.base_vec_env import (
    CloudpickleWrapper,
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)

__all__ = ["GroupedVecEnv"]


def worker_start_method() -> str:
    """How worker processes start: forkserver where the platform has it (a clean, fast
    start without fork's copied threads), else spawn."""
    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


class _RemoteError(RuntimeError):
    """An exception raised in a worker process (its traceback as the message)."""


def _worker(
    remote: Any, parent_remote: Any, fns: CloudpickleWrapper, step_methods: tuple[str, ...]
) -> None:
    parent_remote.close()
    vec = DummyVecEnv(fns.var)

    def extras() -> dict[str, list[Any]]:
        return {name: vec.env_method(name) for name in step_methods}

    while True:
        try:
            cmd, data = remote.recv()
        except (EOFError, KeyboardInterrupt):
            break
        try:
            if cmd == "step":
                vec.step_async(data)
                obs, rews, dones, infos = vec.step_wait()
                out: Any = (obs, rews, dones, infos, vec.reset_infos, extras())
            elif cmd == "reset":
                vec._seeds, vec._options = data  # noqa: SLF001 - this group's slice
                out = (vec.reset(), vec.reset_infos, extras())
            elif cmd == "env_method":
                name, args, kwargs, idx = data
                out = vec.env_method(name, *args, indices=idx, **kwargs)
            elif cmd == "has_attr":
                out = vec.has_attr(data)
            elif cmd == "group_method":
                name, args = data
                out = vec.env_method(name, *args, indices=[0])[0]
            elif cmd == "get_attr":
                out = vec.get_attr(data[0], indices=data[1])
            elif cmd == "set_attr":
                vec.set_attr(data[0], data[1], indices=data[2])
                out = [None] * len(data[2])
            elif cmd == "is_wrapped":
                out = vec.env_is_wrapped(data[0], indices=data[1])
            elif cmd == "get_images":
                out = list(vec.get_images())
            elif cmd == "close":
                vec.close()
                remote.close()
                break
            else:
                raise NotImplementedError(f"unknown command {cmd!r}")
        except Exception:  # noqa: BLE001 - reported to the parent, which raises it
            out = _RemoteError(traceback.format_exc())
        remote.send(out)


def _recv(remote: Any) -> Any:
    out = remote.recv()
    if isinstance(out, _RemoteError):
        raise out
    return out


class GroupedVecEnv(VecEnv):
    """``len(env_fns)`` envs in ``processes`` contiguous groups as equal as can be, group 0
    (one of the smallest) in this process, the rest in one worker process each
    (``start_method`` as for ``SubprocVecEnv``, default forkserver). ``processes=1`` behaves
    as a ``DummyVecEnv``.

    ``step_methods`` names env methods without arguments (MaskablePPO's ``action_masks``)
    that each worker calls right after every step and reset and sends back with the
    observations; ``env_method`` answers those names from that copy until the next step,
    which saves a pipe round trip per step. Any other ``env_method`` or ``set_attr`` call
    drops the copy; :meth:`group_method` keeps it.
    """

    def __init__(
        self,
        env_fns: list[Callable[[], gym.Env]],
        processes: int = 2,
        start_method: str | None = None,
        step_methods: Sequence[str] = ("action_masks",),
    ) -> None:
        n = len(env_fns)
        if n == 0:
            raise ValueError("GroupedVecEnv needs at least one env")
        processes = max(1, min(int(processes), n))
        # this process also runs the policy and its updates: it takes the smallest group
        sizes = [n // processes + (k >= processes - n % processes) for k in range(processes)]
        bounds = [sum(sizes[:k]) for k in range(processes + 1)]
        self._slices = [slice(bounds[k], bounds[k + 1]) for k in range(processes)]
        self.step_methods = tuple(step_methods)
        if start_method is None:
            start_method = worker_start_method()
        ctx = mp.get_context(start_method)
        self.remotes: list[Any] = []
        self.processes: list[Any] = []
        for sl in self._slices[1:]:
            remote, work_remote = ctx.Pipe()
            proc = ctx.Process(
                target=_worker,
                daemon=True,
                args=(work_remote, remote, CloudpickleWrapper(env_fns[sl]), self.step_methods),
            )
            proc.start()
            work_remote.close()
            self.remotes.append(remote)
            self.processes.append(proc)
        self.local = DummyVecEnv(env_fns[self._slices[0]])
        # the workers' step_methods results of the current step: name -> one list per worker
        self._cached: dict[str, list[list[Any]]] = {}
        self.waiting = False
        self.closed = False
        super().__init__(n, self.local.observation_space, self.local.action_space)
        self.metadata = self.local.metadata

    # -- stepping ------------------------------------------------------------------------
    def step_async(self, actions: np.ndarray) -> None:
        self._cached = {}
        for remote, sl in zip(self.remotes, self._slices[1:], strict=True):
            remote.send(("step", actions[sl]))
        self.local.step_async(actions[self._slices[0]])
        self.waiting = True

    def step_wait(self) -> VecEnvStepReturn:
        obs, rews, dones, infos = self.local.step_wait()
        obs_l, rews_l, dones_l, infos_l = [obs], [rews], [dones], list(infos)
        resets = list(self.local.reset_infos)
        worker_extras = []
        for remote in self.remotes:
            o, r, d, i, ri, ex = _recv(remote)
            obs_l.append(o)
            rews_l.append(r)
            dones_l.append(d)
            infos_l += i
            resets += ri
            worker_extras.append(ex)
        self.waiting = False
        self.reset_infos = resets
        self._keep(worker_extras)
        return np.concatenate(obs_l), np.concatenate(rews_l), np.concatenate(dones_l), infos_l

    def reset(self) -> VecEnvObs:
        self._cached = {}
        for remote, sl in zip(self.remotes, self._slices[1:], strict=True):
            remote.send(("reset", (self._seeds[sl], self._options[sl])))
        sl0 = self._slices[0]
        self.local._seeds, self.local._options = self._seeds[sl0], self._options[sl0]  # noqa: SLF001
        obs_l = [self.local.reset()]
        resets = list(self.local.reset_infos)
        worker_extras = []
        for remote in self.remotes:
            o, ri, ex = _recv(remote)
            obs_l.append(o)
            resets += ri
            worker_extras.append(ex)
        self.reset_infos = resets
        self._keep(worker_extras)
        self._reset_seeds()
        self._reset_options()
        return np.concatenate(obs_l)

    def _keep(self, worker_extras: list[dict[str, list[Any]]]) -> None:
        self._cached = {name: [ex[name] for ex in worker_extras] for name in self.step_methods}

    def close(self) -> None:
        if self.closed:
            return
        if self.waiting:
            for remote in self.remotes:
                remote.recv()
            self.waiting = False
        for remote in self.remotes:
            remote.send(("close", None))
        for proc in self.processes:
            proc.join()
        for remote in self.remotes:
            remote.close()
        self.local.close()
        self.closed = True

    def get_images(self) -> Sequence[np.ndarray | None]:
        for remote in self.remotes:
            remote.send(("get_images", None))
        out = list(self.local.get_images())
        for remote in self.remotes:
            out += _recv(remote)
        return out

    @property
    def groups(self) -> int:
        """The number of groups (processes), this process's included."""
        return len(self._slices)

    def group_method(self, method_name: str, *method_args: Any) -> list[Any]:
        """Call ``method_name`` on the first env of every group (this process's first); the
        results, one per group. For methods that read or set what a group's envs share (one
        league copy per process, :class:`train.league.LeagueSync`) and change no env's
        ``step_methods`` results, so the copy of those is kept."""
        for remote in self.remotes:
            remote.send(("group_method", (method_name, method_args)))
        out = [self.local.env_method(method_name, *method_args, indices=[0])[0]]
        return out + [_recv(remote) for remote in self.remotes]

    # -- per-env calls, routed to the group holding each env ------------------------------
    def _call(
        self,
        cmd: str,
        local_fn: Callable[[list[int]], list[Any]],
        make_data: Callable[[list[int]], Any],
        indices: VecEnvIndices,
    ) -> list[Any]:
        """Run a per-env call in the groups holding ``indices``; results in that order."""
        wanted = list(self._get_indices(indices))
        where = [
            next(g for g, sl in enumerate(self._slices) if sl.start <= i < sl.stop) for i in wanted
        ]
        local = {
            g: [i - self._slices[g].start for i, h in zip(wanted, where, strict=True) if h == g]
            for g in sorted(set(where))
        }
        for g, idx in local.items():
            if g > 0:
                self.remotes[g - 1].send((cmd, make_data(idx)))
        results = {
            g: iter(local_fn(idx) if g == 0 else _recv(self.remotes[g - 1]))
            for g, idx in local.items()
        }
        return [next(results[g]) for g in where]

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        cached = self._cached.get(method_name)
        if cached is not None and not method_args and not method_kwargs:
            per_env = self.local.env_method(method_name) + [r for w in cached for r in w]
            return [per_env[i] for i in self._get_indices(indices)]
        self._cached = {}
        return self._call(
            "env_method",
            lambda idx: self.local.env_method(
                method_name, *method_args, indices=idx, **method_kwargs
            ),
            lambda idx: (method_name, method_args, method_kwargs, idx),
            indices,
        )

    def has_attr(self, attr_name: str) -> bool:
        """Whether the envs have ``attr_name``, asked in every process (the attribute itself,
        a bound method of an env holding unpicklable sessions, need not cross a pipe)."""
        for remote in self.remotes:
            remote.send(("has_attr", attr_name))
        here = self.local.has_attr(attr_name)
        return all([_recv(remote) for remote in self.remotes]) and here

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return self._call(
            "get_attr",
            lambda idx: self.local.get_attr(attr_name, indices=idx),
            lambda idx: (attr_name, idx),
            indices,
        )

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        self._cached = {}
        self._call(
            "set_attr",
            lambda idx: [self.local.set_attr(attr_name, value, indices=idx)] * len(idx),
            lambda idx: (attr_name, value, idx),
            indices,
        )

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return self._call(
            "is_wrapped",
            lambda idx: self.local.env_is_wrapped(wrapper_class, indices=idx),
            lambda idx: (wrapper_class, idx),
            indices,
        )
