"""Compile effect ASTs into programs for the machine (`machine.py`), once per pack load.

Expressions that cannot ask compile to Python functions of the runtime, written as source
(`writer.py`, over `codegen.py`). Statements compile to instructions (`ops.py`): a binding, a
jump, a step of a loop, a call of a pack verb (a frame of its own), a built-in verb that asks
(engine code in Python, a native frame), or a choice, which stops the machine until the player
answers. An argument that asks is worked out into a name first, so a question never hides inside
an expression (`lowering.py`: `Compiler`, `_Emitter`). The instructions of a program are then
written as source too, one function per place a frame may stand, and a straight program as one
function (`blocks.py`). Dry runs run a program without its end that could not stop them, after
its preconditions (`dry.py`). Runtime errors name the entity and the source position
(`where.py`), and the bounds of `coh_core.limits` hold: numbers stay within MAX_NUMBER, counts
are never negative, a run of one effect takes at most MAX_LOOP_STEPS loop iterations.

The stages, each a module: `model.py` (what the compiler is given and gives back), `trees.py`
(what it reads off effect trees), `lowering.py`, `writer.py`, `ops.py`, `blocks.py`, `dry.py`,
`where.py`. This file imports none of them (a package's `__init__` stays interpreted in the
compiled build).
"""
