"""Interop check: the official MCP Python SDK client (mcp==2.3.0, pinned by
requirements.txt) against a running chopin-mcp server, on revision 2026-07-28.

    python client.py URL TOKEN [DOCUMENT_ID] [REPOSITORY]

Runs the checks twice: with mode="2026-07-28" (pinned: no probe) and with
mode="auto" (probes server/discover and must land on 2026-07-28, not fall
back to initialize). Prints one line per check ("ok ..." or "FAIL ...") and
exits non-zero when any check fails. The document must exist in the
repository and be readable with the token. Creation needs a server that
offers create_document (not --read-only).
"""

import asyncio
import json
import os
import re
import sys
import time

import httpx2
import mcp_types as types
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

MODERN = "2026-07-28"

failures = 0


async def check(name, run):
    global failures
    try:
        detail = await run()
        print(f"ok   {name}" + (f": {detail}" if detail else ""), flush=True)
    except Exception as error:  # noqa: BLE001 - every failure is reported, not raised
        failures += 1
        print(f"FAIL {name}: {describe(error)}", flush=True)


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def describe(error):
    """The error's type and message, with those of every exception a group holds."""
    parts = [f"{type(error).__name__}: {error}"]
    for inner in getattr(error, "exceptions", ()):
        parts.append(describe(inner))
    return "; ".join(parts)


def dump(result):
    return json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True))


def client_for(url, token, mode):
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(url, http_client=http), mode=mode)


async def run_mode(url, token, document_id, repository, mode):
    label = f"[{mode}]"
    async with client_for(url, token, mode) as client:
        session = client.session

        async def discover():
            if mode != "auto":
                # A pinned client adopts the version without a probe (and
                # session.discover() returns that adopted stand-in): ask the
                # server, and adopt its answer.
                session.adopt(types.DiscoverResult.model_validate(await session.send_discover(MODERN)))
            result = session.discover_result
            expect(result is not None, "no discover result: the client fell back to initialize")
            expect(client.protocol_version == MODERN, f"negotiated {client.protocol_version}")
            expect(MODERN in result.supported_versions, f"supportedVersions {result.supported_versions}")
            expect(client.server_capabilities.tools is not None, "no tools capability")
            info = client.server_info
            expect(info is not None and info.name == "chopin", f"serverInfo {info}")
            return f"{client.protocol_version}, {info.name} {info.version}, supported {result.supported_versions}"

        await check(f"{label} discover", discover)

        async def tools_list():
            result = await client.list_tools()
            names = [tool.name for tool in result.tools]
            for wanted in ("list_documents", "read_document", "create_document"):
                expect(wanted in names, f"{wanted} missing from {names}")
            expect(result.ttl_ms >= 0 and result.cache_scope == "public", f"ttlMs {result.ttl_ms}, {result.cache_scope}")
            return ", ".join(names) + f" (ttlMs {result.ttl_ms}, cacheScope {result.cache_scope})"

        await check(f"{label} tools/list", tools_list)

        async def list_documents():
            result = await client.call_tool("list_documents", {"repository": repository})
            expect(not result.is_error, f"isError in {dump(result)}")
            documents = (result.structured_content or {}).get("documents", [])
            expect(any(doc["id"] == document_id for doc in documents), f"{document_id} not in {documents}")
            expect(
                len(json.loads(result.content[0].text)["documents"]) == len(documents),
                "text and structuredContent differ",
            )
            return f"{len(documents)} in {repository}"

        await check(f"{label} list_documents", list_documents)

        async def read_found():
            result = await client.call_tool("read_document", {"id": document_id})
            doc = result.structured_content or {}
            expect(not result.is_error and doc.get("id") == document_id, dump(result))
            expect(isinstance(doc.get("source"), str) and isinstance(doc.get("revision"), int), json.dumps(doc))
            return f'"{doc["title"]}" revision {doc["revision"]}'

        await check(f"{label} read_document (found)", read_found)

        async def read_absent():
            result = await client.call_tool("read_document", {"id": "no-such-document"})
            expect(result.is_error is True and result.content == [], dump(result))
            return "isError with no content"

        await check(f"{label} read_document (absent)", read_absent)

        draft = {
            "idempotencyKey": f"python-{mode}-{os.getpid()}-{time.time_ns()}",
            "repository": repository,
            "baseBranch": "main",
            "baseCommit": "0123456789abcdef0123456789abcdef01234567",
            "title": "Ship MCP creation",
            "brief": {
                "goal": "Create a collaborative plan.",
                "constraints": ["Keep plans immutable through MCP."],
                "settledDecisions": ["Use the documented dialect."],
                "openQuestions": ["Which reviewer owns the rollout?"],
                "repositoryFindings": ["The plan becomes a hosted channel."],
            },
            "plan": '# Draft\n\n<Callout type="note">\nCreated through MCP.\n</Callout>\n',
        }
        created = {}

        async def create_created():
            result = await client.call_tool("create_document", draft)
            created.update(result.structured_content or {})
            expect(not result.is_error and created.get("revision") == 0, dump(result))
            expect(
                re.search(r'<Callout id="[0-7][0-9A-HJKMNP-TV-Z]{25}" type="note">', created["source"]),
                created["source"],
            )
            expect(created["url"] == f"/documents/{created['id']}", f"url {created['url']}")
            return f"{created['id']} at {created['url']}"

        await check(f"{label} create_document (created)", create_created)

        async def create_replayed():
            result = await client.call_tool("create_document", draft)
            doc = result.structured_content or {}
            expect(not result.is_error and doc.get("id") == created.get("id"), dump(result))
            expect(doc["source"] == created["source"], "a replay must return the stored source")
            return f"same document {created['id']}"

        await check(f"{label} create_document (replayed)", create_replayed)

        async def create_conflict():
            result = await client.call_tool("create_document", {**draft, "title": "A changed title"})
            expect(
                result.is_error is True and (result.structured_content or {}).get("code") == "idempotency-conflict",
                dump(result),
            )
            return "idempotency-conflict"

        await check(f"{label} create_document (conflict)", create_conflict)

        async def create_issues():
            result = await client.call_tool(
                "create_document",
                {**draft, "idempotencyKey": draft["idempotencyKey"] + "-issues", "plan": "<Chart />\n"},
            )
            issues = (result.structured_content or {}).get("issues", [])
            expect(result.is_error is True and issues and issues[0]["code"] == "unknown-component", dump(result))
            expect(issues[0]["path"] == "root > Chart[0]" and issues[0]["offset"] == 0, json.dumps(issues[0]))
            return ", ".join(issue["code"] for issue in issues)

        await check(f"{label} create_document (dialect issues)", create_issues)

        async def read_created():
            result = await client.call_tool("read_document", {"id": created.get("id")})
            doc = result.structured_content or {}
            expect(not result.is_error and doc.get("source") == created.get("source"), dump(result))
            return f"revision {doc['revision']}"

        await check(f"{label} read_document (created)", read_created)

        await check(f"{label} still {MODERN} at the end", _still_modern(client))


def _still_modern(client):
    async def run():
        expect(client.protocol_version == MODERN, f"negotiated {client.protocol_version}")
        expect(client.session.initialize_result is None, "an initialize result: the legacy handshake ran")
        return client.protocol_version

    return run


async def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print("usage: python client.py URL TOKEN [DOCUMENT_ID] [REPOSITORY]", file=sys.stderr)
        return 2
    url, token = args[0], args[1]
    document_id = args[2] if len(args) > 2 else "f401c8d6-3717-4f1d-8473-cfdd0af894e4"
    repository = args[3] if len(args) > 3 else "githubnext/chopin"

    for mode in (MODERN, "auto"):
        try:
            await run_mode(url, token, document_id, repository, mode)
        except Exception as error:  # noqa: BLE001 - a failed connect is one more failure
            global failures
            failures += 1
            print(f"FAIL [{mode}] connect: {describe(error)}", flush=True)

    async def no_token():
        # The SDK reports a non-JSON 401 as a generic error; the status is read
        # off the HTTP client's response hook.
        statuses = []

        async def record(response):
            statuses.append(response.status_code)

        http = httpx2.AsyncClient(event_hooks={"response": [record]})
        try:
            async with Client(streamable_http_client(url, http_client=http), mode=MODERN) as client:
                await client.list_tools()
        except Exception as error:  # noqa: BLE001 - the refusal is what is checked
            expect(statuses and set(statuses) == {401}, f"statuses {statuses}: {describe(error)}")
            return "refused"
        raise AssertionError("listed tools without a token")

    await check("[2026-07-28] no token: 401", no_token)

    print("python interop: all checks passed" if failures == 0 else f"python interop: {failures} checks failed")
    return 0 if failures == 0 else 1


def run(main, seconds=90):
    """Exits with what `main()` returns; a server that stops answering fails
    the run after `seconds`, not hangs it."""
    try:
        sys.exit(asyncio.run(asyncio.wait_for(main(), timeout=seconds)))
    except TimeoutError:
        print(f"FAIL timeout: the checks did not finish in {seconds} s", flush=True)
        sys.exit(1)


if __name__ == "__main__":
    run(main)
