"""A thread's checkpoint keeps the reader's text masked, like every other store.

With a checkpointer, the run's final state is written to the threads database: the
question, its standalone form, the Research query, drafts, the Critic's gaps and the
answer. The run masks the question at its first stage (``nodes.condense``), but the
input the caller passed is written before any stage runs; what is *written* goes through
``masked_values``: the questions and the query masked (``masking.mask``), every text a
model wrote (drafts, answer, gaps, claims) with the reader's own pasted values masked
where it repeats them (``masking.mask_echoes``). The turns in ``history`` are masked as
they are made (``state.Turn``).

``masking_checkpoints(saver)`` returns a shallow clone of ``saver`` (sharing its
storage) whose ``put``/``aput``, and ``put_writes``/``aput_writes``, store those masked
values; reading is unchanged.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from askai_graph.evidence.critique import Critique
from askai_graph.text.masking import mask, mask_echoes

_ASKED = ("question", "standalone_question", "query")
_WRITTEN = ("answer", "draft")
_WRITTEN_LISTS = ("rejected_drafts", "gaps")


def masked_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """Return state ``values`` as a thread may store them (see the module docstring)."""
    asked = [str(values[key]) for key in ("question", "standalone_question") if isinstance(values.get(key), str)]
    return {key: _masked(key, value, asked) for key, value in values.items()}


def _masked(key: str, value: Any, asked: Sequence[str]) -> Any:
    def echo(text: str) -> str:
        return mask_echoes(text, *asked)

    if key in _ASKED and isinstance(value, str):
        return mask(value)
    if key in _WRITTEN and isinstance(value, str):
        return echo(value)
    if key in _WRITTEN_LISTS and isinstance(value, list):
        return [echo(mask(item)) if isinstance(item, str) else item for item in value]
    if key == "best_rejected" and isinstance(value, dict) and isinstance(value.get("draft"), str):
        return {**value, "draft": echo(value["draft"])}
    if key == "critique" and isinstance(value, Critique):
        gaps = [echo(mask(gap)) for gap in value.gaps]
        return value.model_copy(update={"gaps": gaps, "ungrounded_claims": [echo(c) for c in value.ungrounded_claims]})
    return value


def _masked_checkpoint(checkpoint: Any) -> Any:
    values = checkpoint.get("channel_values") if isinstance(checkpoint, Mapping) else None
    if not isinstance(values, Mapping):
        return checkpoint
    return {**checkpoint, "channel_values": masked_values(values)}


def _masked_writes(writes: Sequence[tuple[str, Any]]) -> list[tuple[str, Any]]:
    # A write names one channel; the questions it echoes are those the same batch writes.
    values = dict(writes)
    asked = [str(values[key]) for key in ("question", "standalone_question") if isinstance(values.get(key), str)]
    return [(channel, _masked(channel, value, asked)) for channel, value in writes]


def masking_checkpoints(saver: BaseCheckpointSaver[Any] | None) -> BaseCheckpointSaver[Any] | None:
    """Return a clone of ``saver`` that stores the reader's text masked (``None`` stays ``None``)."""
    if saver is None:
        return None
    clone = copy.copy(saver)
    put, aput, put_writes, aput_writes = saver.put, saver.aput, saver.put_writes, saver.aput_writes

    def masked_put(config: Any, checkpoint: Any, *args: Any, **kwargs: Any) -> Any:
        return put(config, _masked_checkpoint(checkpoint), *args, **kwargs)

    async def masked_aput(config: Any, checkpoint: Any, *args: Any, **kwargs: Any) -> Any:
        return await aput(config, _masked_checkpoint(checkpoint), *args, **kwargs)

    def masked_put_writes(config: Any, writes: Sequence[tuple[str, Any]], *args: Any, **kwargs: Any) -> Any:
        return put_writes(config, _masked_writes(writes), *args, **kwargs)

    async def masked_aput_writes(config: Any, writes: Sequence[tuple[str, Any]], *args: Any, **kwargs: Any) -> Any:
        return await aput_writes(config, _masked_writes(writes), *args, **kwargs)

    overrides: dict[str, Callable[..., Any]] = {
        "put": masked_put,
        "aput": masked_aput,
        "put_writes": masked_put_writes,
        "aput_writes": masked_aput_writes,
    }
    for name, method in overrides.items():
        setattr(clone, name, method)
    return clone
