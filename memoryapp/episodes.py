"""The closing episode: a visit's summary written when its session ends."""

from __future__ import annotations

from dataclasses import dataclass

from memoryapp.blocks import EPISODE, FACT_KIND, block_kind, created_at_for
from memoryapp.cleaning import session_id_clean
from memoryapp.clients import memory_user_async
from memoryapp.conf import memory_conf
from memoryapp.guard import guarded
from memoryapp.judge import episode_compose
from memoryapp.recall import session_list
from memoryapp.sessions import session_get_open, session_info_from


@dataclass(frozen=True)
class CloseOutcome:
    """How a close went. `ended`: memory ended the session now; `reached` False: memory could
    not be reached (or refused a step), nothing was ended, and the close must be retried."""

    ended: bool
    reached: bool
    episode_block_id: str | None = None
    episode_existed: bool = False


async def session_end(*, user_id: str, display_name: str, session_id: str) -> CloseOutcome:
    """Write the visit's episode, then end the session; safe to retry until it ends.

    Nothing happens for an id that is not one of this shopper's open sessions (reached, not
    ended). The session is ended only once its episode is stored (or there is nothing to
    summarise): a close that cannot read the visit or store its summary leaves the session
    open and says so, so a retry (the shopper's next healthy turn or close) writes it then.
    An episode stored by an earlier attempt whose end failed is found and not written again.
    display_name is accepted like session_open's, but a close never creates a memory user.
    """
    conf = memory_conf()
    cleaned = session_id_clean(session_id)
    if cleaned is None:
        return CloseOutcome(ended=False, reached=True)
    session_id = cleaned
    ok, resource = await guarded(
        session_get_open(memory_user_async(user_id), session_id),
        path="write",
        lost="the closing episode",
        timeout=conf.write_timeout_seconds,
    )
    if not ok:
        return CloseOutcome(ended=False, reached=False)
    if resource is None:
        return CloseOutcome(ended=False, reached=True)
    info = session_info_from(resource, created=False)
    ok, blocks = await guarded(
        session_list(resource, cap=conf.max_session_blocks),
        path="read",
        lost="the closing episode",
        timeout=conf.write_timeout_seconds,
    )
    if not ok:
        return CloseOutcome(ended=False, reached=False)
    earlier = [b for b in blocks or [] if (b.annotations or {}).get("type") == EPISODE["type"]]
    episode_id = earlier[0].block_id if earlier else None
    ordered = sorted(blocks or [], key=lambda b: b.created_at or b.ingested_at)
    turns = [
        (b.message.user_content, b.message.assistant_content)
        for b in ordered
        if b.message is not None
    ]
    # What the shopper said about themselves this visit: the writer's request is bounded
    # (the last exchanges), and these say in a line each what earlier ones may have held.
    facts = [b.fact for b in ordered if block_kind(b) == FACT_KIND and b.fact]
    if turns and episode_id is None:
        episode = await episode_compose(turns=turns, facts=facts)
        if episode is not None:
            ok, response = await guarded(
                resource.add_memory(
                    facts=[episode.text],
                    annotations={**EPISODE, "resolved": "true" if episode.found else "false"},
                    context_required=False,
                    created_at=created_at_for(info.session_date),
                ),
                path="write",
                lost="the closing episode",
                timeout=conf.write_timeout_seconds,
            )
            if not (ok and response and response.block_ids):
                return CloseOutcome(ended=False, reached=False)
            episode_id = response.block_ids[0]
    ok, _ = await guarded(
        resource.end(), path="write", lost="ending the session", timeout=conf.write_timeout_seconds
    )
    return CloseOutcome(
        ended=ok, reached=ok, episode_block_id=episode_id, episode_existed=bool(earlier)
    )


async def session_close(*, user_id: str, display_name: str, session_id: str) -> str | None:
    """session_end, for callers that want only the episode's block id."""
    outcome = await session_end(user_id=user_id, display_name=display_name, session_id=session_id)
    return outcome.episode_block_id
