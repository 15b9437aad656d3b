"""The game engine (in progress): state, flow, effect execution, decisions, views."""
