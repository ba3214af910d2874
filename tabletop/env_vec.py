"""Action masks for stable-baselines3 vector envs whose envs put the mask in their infos.

PettingZoo's parameter-sharing recipe turns a parallel env into an SB3 ``VecEnv`` with
SuperSuit (``pettingzoo_env_to_vec_env_v1`` + ``concat_vec_envs_v1(...,
base_class="stable_baselines3")``). SuperSuit's vector envs refuse Dict observations, and
sb3-contrib's MaskablePPO asks a ``VecEnv`` for ``action_masks()`` through ``has_attr`` /
``env_method``, which SuperSuit's ``ConcatVecEnv`` lacks. So:

- build the env with ``mask_in="info"``: a bare ``Box`` observation, the mask in
  ``infos[agent]["action_mask"]`` (every step, the reset infos included);
- wrap the SB3 vector env in :class:`ActionMasksVecEnv`, which keeps the mask of each
  sub-env's latest observation from those infos and answers ``action_masks()``.

```python
import supersuit as ss
from sb3_contrib import MaskablePPO
import lunatix_env
from tabletop.env_vec import ActionMasksVecEnv

env = lunatix_env.parallel_env(num_players=2, mask_in="info")
venv = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(env), 4,
                             base_class="stable_baselines3")
model = MaskablePPO("MlpPolicy", ActionMasksVecEnv(venv)).learn(2048)
```

Any SB3 ``VecEnv`` whose step and reset infos carry the mask works the same way (SB3's
``DummyVecEnv`` and ``SubprocVecEnv`` of the single-agent views too; SuperSuit's own frame
stacking or normalizing wrappers, applied before the vectorizing).

The wrapper also mends one more gap of SuperSuit's SB3 wrapper: it cannot be seeded (SB3
calls ``venv.seed(seed)`` when a model gets ``seed=``, and SuperSuit's ``ConcatVecEnv`` has no
``seed``). Here the seed is kept and handed to SuperSuit's Gymnasium vector env at the next
reset, which seeds its copies ``seed``, ``seed + 1``, ...
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

#: the method sb3-contrib's MaskablePPO looks for (``sb3_contrib.common.maskable.utils``)
ACTION_MASKS = "action_masks"


class MissingMaskError(ValueError):
    """A sub-env's info has no action mask (the env was not built with ``mask_in="info"``)."""


class ActionMasksVecEnv(VecEnvWrapper):
    """An SB3 ``VecEnv`` with ``action_masks()``: the masks of the sub-envs' latest
    observations, read from their infos (``infos[i][mask_key]``) at each reset and step.

    ``action_masks()`` is a ``(num_envs, n)`` bool array; ``has_attr("action_masks")`` and
    ``env_method("action_masks")`` answer it too, as MaskablePPO asks. Every other attribute
    and method goes to the wrapped env.
    """

    def __init__(self, venv: VecEnv, mask_key: str = "action_mask") -> None:
        super().__init__(venv)
        self.mask_key = mask_key
        self._masks: np.ndarray | None = None
        self._reset_seed: int | None = None

    # -- stepping -------------------------------------------------------------------------
    def reset(self) -> Any:
        """Reset the wrapped env; the masks come from its ``reset_infos``."""
        inner = getattr(self.venv, "venv", None)
        if self._reset_seed is not None and isinstance(inner, gymnasium.vector.VectorEnv):
            # SuperSuit's SB3 wrapper over its Gymnasium vector env: seeded at its reset
            obs, infos = inner.reset(seed=self._reset_seed)
            # SuperSuit's vector env gives one info per copy (Gymnasium types the infos a dict)
            self.venv.reset_infos = list(cast("list[dict[str, Any]]", infos))
        else:
            obs = self.venv.reset()
        self._reset_seed = None
        self.reset_infos = list(getattr(self.venv, "reset_infos", []))
        self._masks = self._read(self.reset_infos, "reset")
        return obs

    def step_wait(self) -> VecEnvStepReturn:
        """Step the wrapped env. A finished sub-env has already started its next episode:
        its mask is in ``reset_infos[i]`` (SB3's DummyVecEnv, SubprocVecEnv) or in the step's
        info itself (SuperSuit merges the reset info into the last step's)."""
        obs, rewards, dones, infos = self.venv.step_wait()
        reset_infos = getattr(self.venv, "reset_infos", None) or []
        sources = list(infos)
        for i in np.flatnonzero(dones):
            if i < len(reset_infos) and self.mask_key in reset_infos[i]:
                sources[i] = reset_infos[i]
        self._masks = self._read(sources, "step")
        return obs, rewards, dones, infos

    def _read(self, infos: Sequence[dict[str, Any]], where: str) -> np.ndarray:
        if len(infos) != self.num_envs:
            raise MissingMaskError(
                f"the wrapped VecEnv's {where} gave {len(infos)} infos for {self.num_envs} envs "
                "(SB3 VecEnvs keep their reset infos in reset_infos)"
            )
        masks = []
        for i, info in enumerate(infos):
            if self.mask_key not in info:
                raise MissingMaskError(
                    f"info {i} of the {where} has no {self.mask_key!r} (keys: {sorted(info)}); "
                    "build the env with mask_in='info' so that the mask is in its infos"
                )
            masks.append(np.asarray(info[self.mask_key]))
        return np.stack(masks).astype(bool)

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next reset: through the wrapped env's ``seed`` where it has one, else
        (SuperSuit) at that reset, copy ``i`` getting ``seed + i``."""
        try:
            return self.venv.seed(seed)
        except AttributeError:
            self._reset_seed = seed
            return [None if seed is None else seed + i for i in range(self.num_envs)]

    # -- the masks ------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """``(num_envs, n)`` bool: each sub-env's legal actions now."""
        if self._masks is None:
            raise RuntimeError("action_masks() before reset()")
        return self._masks.copy()

    def has_attr(self, attr_name: str) -> bool:
        """True for ``action_masks``; else whether the wrapped env has it (asked through
        ``get_attr`` where the wrapped env has no ``has_attr``, as SuperSuit's)."""
        if attr_name == ACTION_MASKS:
            return True
        try:
            return bool(self.venv.has_attr(attr_name))
        except AttributeError:
            try:
                self.venv.get_attr(attr_name)
            except AttributeError:
                return False
            return True

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``action_masks`` answered here, one mask per index; others as the wrapped env."""
        if method_name == ACTION_MASKS:
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)
