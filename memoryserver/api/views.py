"""The API's views: parse with an input serializer, call one service or selector, shape the answer."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from memoryserver import selectors
from memoryserver.api import serializers as s
from memoryserver.api.base import ApiView, path_ids, query_params, validated
from memoryserver.payloads import block_payload
from memoryserver.services.blocks import block_update, blocks_add, blocks_delete
from memoryserver.services.prompts import prompt_archive, prompt_create, prompt_purge, prompt_update
from memoryserver.services.sessions import (
    session_create,
    session_delete,
    session_end,
    session_update,
)
from memoryserver.services.ttl import ttl_modify
from memoryserver.services.users import user_create, user_delete, user_update

# --- users ---------------------------------------------------------------------------


class UsersView(ApiView):
    def post(self, request: Request) -> Response:
        data = validated(s.UserCreate, request.data)
        user = user_create(
            user_id=data["user_id"], name=data["name"], metadata=data.get("metadata")
        )
        return Response(s.user_out(user, []), status=201)

    def get(self, request: Request) -> Response:
        paging = validated(s.Paging, query_params(request), default_limit=50, max_limit=500)
        metadata = s.metadata_filters(request.query_params.getlist("metadata"))
        users, total = selectors.users_list(
            name=request.query_params.get("name"), metadata=metadata, **paging
        )
        items = [s.user_out(user, session_ids) for user, session_ids in users]
        return Response({"users": items, "count": len(items), "total": total, **paging})


class UserView(ApiView):
    def get(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        user, session_ids = selectors.user_detail(user_id=user_id)
        return Response(s.user_out(user, session_ids))

    def put(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        data = validated(s.UserUpdate, request.data)
        user = user_update(
            user_id=user_id,
            name=data.get("name"),
            metadata=data.get("metadata"),
            set_metadata="metadata" in data,
        )
        return Response(s.user_out(user, selectors.user_session_ids(user)))

    def delete(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        user_delete(user_id=user_id)
        return Response(status=204)


class UserTTLView(ApiView):
    def put(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        data = validated(s.TTLUpdate, request.data)
        changed = ttl_modify(
            user_id=user_id,
            new_ttl=data["new_ttl"],
            session_id=data.get("session_id"),
            block_ids=data.get("block_ids"),
        )
        return Response({"message": f"TTL set to {data['new_ttl']}s", "updated_count": changed})


class UserMemoryView(ApiView):
    def get(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        data = validated(s.MemoryListQuery, query_params(request))
        blocks, total = selectors.blocks_list(
            user_id=user_id,
            session_ids=data.get("session_ids"),
            order_by=data["order_by"],
            limit=data["limit"],
            offset=data["offset"],
        )
        return Response(
            {
                "memory_blocks": blocks,
                "count": len(blocks),
                "total": total,
                "limit": data["limit"],
                "offset": data["offset"],
            }
        )


# --- sessions ------------------------------------------------------------------------


class SessionsView(ApiView):
    def post(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        data = validated(s.SessionCreate, request.data)
        session = session_create(
            user_id=user_id,
            session_id=data["session_id"],
            annotations=data.get("annotations"),
            metadata=data.get("metadata"),
            blocks_ttl=data.get("memory_blocks_ttl"),
        )
        return Response(s.session_out(session, user_id), status=201)

    def get(self, request: Request, user_id: str) -> Response:
        path_ids(user_id=user_id)
        paging = validated(s.Paging, query_params(request), default_limit=50, max_limit=500)
        sessions, total = selectors.sessions_list(user_id=user_id, **paging)
        items = [s.session_out(x, user_id) for x in sessions]
        return Response({"sessions": items, "count": len(items), "total": total, **paging})


class SessionView(ApiView):
    def get(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        session = selectors.session_get(user_id=user_id, session_id=session_id)
        return Response(s.session_out(session, user_id))

    def put(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        data = validated(s.SessionUpdate, request.data)
        session = session_update(
            user_id=user_id,
            session_id=session_id,
            annotations=data.get("annotations"),
            metadata=data.get("metadata"),
        )
        return Response(s.session_out(session, user_id))

    def delete(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        session_delete(user_id=user_id, session_id=session_id)
        return Response(status=204)


class SessionEndView(ApiView):
    def post(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        session = session_end(user_id=user_id, session_id=session_id)
        return Response(s.session_out(session, user_id))


# --- memory --------------------------------------------------------------------------


class MemoryView(ApiView):
    def post(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        data = validated(s.MemoryAdd, request.data)
        result = blocks_add(
            user_id=user_id,
            session_id=session_id,
            items=data["items"],
            annotations=data.get("annotations"),
            block_ttl=data.get("memory_block_ttl"),
            context_required=data.get("context_required"),
            created_at=data.get("created_at"),
            async_processing=data["async_processing"],
            prompt_id=data.get("prompt_id"),
            prompt_vid=data.get("prompt_vid"),
        )
        accepted = len(result.block_ids)
        return Response(
            {
                "message": f"accepted {accepted} memory block(s)",
                "accepted_count": accepted,
                "block_ids": result.block_ids,
                "rejected_count": len(result.rejected),
                "rejected_details": result.rejected or None,
            },
            status=201,
        )

    def delete(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        data = validated(s.MemoryDelete, request.data)
        deleted = blocks_delete(user_id=user_id, session_id=session_id, block_ids=data["block_ids"])
        return Response({"deleted_count": deleted, "failed_count": 0, "failed_block_ids": []})


class MemoryBlockView(ApiView):
    def put(self, request: Request, user_id: str, session_id: str, block_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id, block_id=block_id)
        data = validated(s.MemoryUpdate, request.data)
        block = block_update(
            user_id=user_id,
            session_id=session_id,
            block_id=block_id,
            content=data["content"],
            annotations=data.get("annotations"),
            block_ttl=data.get("memory_block_ttl"),
            async_processing=data["async_processing"],
            context_required=data.get("context_required"),
            prompt_id=data.get("prompt_id"),
            prompt_vid=data.get("prompt_vid"),
        )
        return Response({"message": "memory block updated", "block": block_payload(block)})


class MemorySearchView(ApiView):
    def post(self, request: Request, user_id: str, session_id: str) -> Response:
        path_ids(user_id=user_id, session_id=session_id)
        data = validated(s.MemorySearch, request.data)
        found = selectors.blocks_search(
            user_id=user_id,
            session_id=session_id,
            query=data.get("query"),
            filters=data.get("filters") or {},
        )
        return Response({"memory_blocks": found, "count": len(found)})


# --- prompts -------------------------------------------------------------------------


class PromptsView(ApiView):
    def post(self, request: Request) -> Response:
        data = validated(s.PromptCreate, request.data)
        prompt_create(
            prompt_id=data["prompt_id"],
            text=data["prompt"],
            description=data["description"],
            annotations=data.get("annotations"),
        )
        return Response(
            s.prompt_out(selectors.prompt_detail(prompt_id=data["prompt_id"])), status=201
        )

    def get(self, request: Request) -> Response:
        paging = validated(s.Paging, query_params(request), default_limit=100, max_limit=1000)
        prompts, total = selectors.prompts_list(**paging)
        items = [s.prompt_out(p) for p in prompts]
        return Response({"prompts": items, "count": len(items), "total": total, **paging})


class PromptView(ApiView):
    def get(self, request: Request, prompt_id: str) -> Response:
        path_ids(prompt_id=prompt_id)
        vid = request.query_params.get("vid")
        if vid is None:
            return Response(s.prompt_out(selectors.prompt_detail(prompt_id=prompt_id)))
        prompt, version = selectors.prompt_version_detail(
            prompt_id=prompt_id,
            vid=s.parse_vid(vid, allow_all=False),  # type: ignore[arg-type]
        )
        return Response(s.version_out(prompt, version))

    def put(self, request: Request, prompt_id: str) -> Response:
        path_ids(prompt_id=prompt_id)
        data = validated(s.PromptUpdate, request.data)
        prompt_update(
            prompt_id=prompt_id,
            text=data.get("prompt"),
            description=data.get("description"),
            annotations=data.get("annotations"),
        )
        return Response(s.prompt_out(selectors.prompt_detail(prompt_id=prompt_id)))

    def delete(self, request: Request, prompt_id: str) -> Response:
        path_ids(prompt_id=prompt_id)
        vid = s.parse_vid(request.query_params.get("vid"), allow_all=True)
        prompt_purge(prompt_id=prompt_id, vid=vid)
        return Response(status=204)


class PromptArchiveView(ApiView):
    def put(self, request: Request, prompt_id: str) -> Response:
        path_ids(prompt_id=prompt_id)
        vid = s.parse_vid(request.query_params.get("vid"), allow_all=True)
        prompt_archive(prompt_id=prompt_id, vid=vid)
        return Response(status=204)


class PromptVersionsView(ApiView):
    def get(self, request: Request, prompt_id: str) -> Response:
        path_ids(prompt_id=prompt_id)
        paging = validated(s.Paging, query_params(request), default_limit=100, max_limit=1000)
        prompt, versions, total = selectors.prompt_versions_list(prompt_id=prompt_id, **paging)
        items = [s.version_out(prompt, v) for v in versions]
        return Response({"versions": items, "count": len(items), "total": total, **paging})
