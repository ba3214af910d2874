"""Lunatix Loop: the rules engine (``lunatix_env.rules``); PettingZoo envs arrive next."""
