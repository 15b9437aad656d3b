"""Adapters for reinforcement-learning and game-theory libraries (the optional extra `rl`).

`coh_core.rl.pettingzoo` makes any pack a PettingZoo environment (`env()`, `raw_env()`,
`parallel_env()`); `coh_core.rl.openspiel` registers it with OpenSpiel as `python_coh`. Both are
built on the engine's own API only: who answers, the legal answers as ids of the action space,
observations, information states, returns, fork, save and the sampler of worlds.
"""
