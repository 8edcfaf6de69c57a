"""The closing episode: a visit's summary written when its session ends."""

from __future__ import annotations

from memoryapp.blocks import EPISODE, created_at_for
from memoryapp.cleaning import session_id_clean
from memoryapp.clients import memory_user_async
from memoryapp.conf import memory_conf
from memoryapp.guard import guarded
from memoryapp.judge import episode_compose
from memoryapp.recall import session_list
from memoryapp.sessions import session_get_open, session_info_from


async def session_close(*, username: str, display_name: str, session_id: str) -> str | None:
    """Write the visit's episode, then end the session. Returns the episode block id.

    Nothing happens for an id that is not one of this shopper's open sessions; display_name
    is accepted like session_open's, but a close never creates a memory user.
    """
    conf = memory_conf()
    session_id = session_id_clean(session_id)
    if session_id is None:
        return None
    ok, resource = await guarded(
        session_get_open(memory_user_async(username), session_id),
        path="write",
        lost="the closing episode",
        timeout=conf.write_timeout_seconds,
    )
    if not ok or resource is None:
        return None
    info = session_info_from(resource, created=False)
    ok, blocks = await guarded(
        session_list(resource, cap=conf.max_session_blocks),
        path="read",
        lost="the closing episode",
        timeout=conf.write_timeout_seconds,
    )
    turns = [
        (b.message.user_content, b.message.assistant_content)
        for b in sorted(blocks or [], key=lambda b: b.created_at or b.ingested_at)
        if b.message is not None
    ]
    episode_id = None
    if turns:
        episode = await episode_compose(turns=turns)
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
            if ok and response and response.block_ids:
                episode_id = response.block_ids[0]
    await guarded(
        resource.end(), path="write", lost="ending the session", timeout=conf.write_timeout_seconds
    )
    return episode_id
