"""Interop check: a plan's whole life (update, rename, archive, restore; a
denied list; create's issues result) through the official MCP Python SDK
client (mcp==2.3.0, pinned by requirements.txt), in both protocol eras:
mode="legacy" (the initialize handshake) and mode="2026-07-28". The client
validates a successful result's structuredContent against the tool's output
schema (the `oneOf` of LIFECYCLE.md), and must read every error result
without raising.

    python lifecycle.py URL TOKEN REPOSITORY DENIED_REPOSITORY

The token's caller must be able to create in REPOSITORY and have no grant for
DENIED_REPOSITORY; the server must offer the write tools. Prints one line per
check ("ok ..." or "FAIL ...") and exits non-zero when any check fails.
"""

import asyncio
import json
import os
import re
import sys
import time

import client as checks
from client import MODERN, check, client_for, dump, expect

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
MINTED = re.compile(r'<Callout id="[0-7][0-9A-HJKMNP-TV-Z]{25}" type="note">')
WRITE_TOOLS = ("update_document", "rename_document", "archive_document", "restore_document")


def draft(key, repository, plan):
    return {
        "idempotencyKey": key,
        "repository": repository,
        "baseBranch": "main",
        "baseCommit": "0123456789abcdef0123456789abcdef01234567",
        "title": "Ship MCP revisions",
        "brief": {
            "goal": "Revise a collaborative plan.",
            "constraints": [],
            "settledDecisions": [],
            "openQuestions": [],
            "repositoryFindings": [],
        },
        "plan": plan,
    }


async def run_mode(url, token, repository, denied, mode):
    label = f"[{mode}]"
    key = f"python-lifecycle-{mode}-{os.getpid()}-{time.time_ns()}"
    async with client_for(url, token, mode) as client:
        doc, revised = {}, {}

        async def call(name, arguments):
            return await client.call_tool(name, arguments)

        async def listed():
            result = await call("list_documents", {"repository": repository})
            expect(not result.is_error, dump(result))
            return [d["id"] for d in result.structured_content["documents"]]

        async def era():
            if mode == "legacy":
                expect(client.session.initialize_result is not None, "no initialize result")
            else:
                expect(client.protocol_version == MODERN, f"negotiated {client.protocol_version}")
            names = [tool.name for tool in (await client.list_tools()).tools]
            expect(all(name in names for name in WRITE_TOOLS), f"tools {names}")
            return f"{client.protocol_version}: {', '.join(names)}"

        await check(f"{label} the write tools listed", era)

        async def create_issues():
            result = await call("create_document", draft(f"{key}-issues", repository, "<Chart />\n"))
            issues = (result.structured_content or {}).get("issues", [])
            expect(result.is_error is True and issues and issues[0]["code"] == "unknown-component", dump(result))
            return ", ".join(issue["code"] for issue in issues)

        await check(f"{label} create_document (dialect issues)", create_issues)

        async def read_brief():
            created = await call("create_document", draft(key, repository, "# Draft\n\nFirst version.\n"))
            expect(not created.is_error, dump(created))
            doc.update(created.structured_content)
            result = await call("read_document", {"id": doc["id"]})
            read = result.structured_content or {}
            expect(not result.is_error and read.get("brief", {}).get("goal") == "Revise a collaborative plan.", dump(result))
            expect(list(read) == ["id", "title", "brief", "source", "revision", "url"], f"keys {list(read)}")
            return f"{doc['id']}: brief read back"

        await check(f"{label} read_document (brief)", read_brief)

        update = {
            "id": doc.get("id"),
            "revision": 0,
            "plan": '# Revised\n\n<Callout type="note">\nRevised through MCP.\n</Callout>\n',
            "idempotencyKey": f"{key}-update",
        }

        async def updated():
            result = await call("update_document", update)
            revised.update(result.structured_content or {})
            expect(not result.is_error and revised.get("revision") == 1, dump(result))
            expect(MINTED.search(revised["source"]), revised["source"])
            expect(revised["url"] == doc["url"] and revised["brief"] == doc["brief"], json.dumps(revised))
            return f"revision {revised['revision']}"

        await check(f"{label} update_document (updated)", updated)

        async def replayed():
            result = await call("update_document", update)
            expect(not result.is_error and result.structured_content == revised, dump(result))
            return "the same answer"

        await check(f"{label} update_document (replayed)", replayed)

        async def revision_conflict():
            result = await call("update_document", {**update, "idempotencyKey": f"{key}-stale"})
            expect(result.is_error is True, dump(result))
            expect(result.structured_content == {"code": "revision-conflict", "revision": 1}, dump(result))
            expect(json.loads(result.content[0].text) == result.structured_content, dump(result))
            return "revision-conflict at 1"

        await check(f"{label} update_document (revision-conflict)", revision_conflict)

        async def update_issues():
            result = await call(
                "update_document",
                {**update, "revision": 1, "plan": "<Chart />\n", "idempotencyKey": f"{key}-issues"},
            )
            issues = (result.structured_content or {}).get("issues", [])
            expect(result.is_error is True and issues and issues[0]["code"] == "unknown-component", dump(result))
            expect(issues[0]["path"] == "root > Chart[0]" and issues[0]["offset"] == 0, json.dumps(issues[0]))
            read = await call("read_document", {"id": doc["id"]})
            expect(read.structured_content["revision"] == 1, f"stored anyway: {dump(read)}")
            return ", ".join(issue["code"] for issue in issues)

        await check(f"{label} update_document (dialect issues)", update_issues)

        async def rename():
            by_url = await call("rename_document", {"id": doc["url"], "title": "Not by URL"})
            expect(by_url.is_error is True and by_url.structured_content == {"code": "document-unavailable"}, dump(by_url))
            result = await call("rename_document", {"id": doc["id"], "title": "  Renamed through MCP  "})
            expect(not result.is_error, dump(result))
            expect(result.structured_content == {"id": doc["id"], "title": "Renamed through MCP"}, dump(result))
            return result.structured_content["title"]

        await check(f"{label} rename_document (by id; a URL is no id)", rename)

        async def archive():
            result = await call("archive_document", {"id": doc["id"]})
            archived = result.structured_content or {}
            expect(not result.is_error and archived.get("title") == "Renamed through MCP", dump(result))
            expect(TIMESTAMP.match(archived["archivedAt"]), f"archivedAt {archived['archivedAt']}")
            expect(doc["id"] not in await listed(), "still listed")
            read = await call("read_document", {"id": doc["id"]})
            expect(not read.is_error and (read.structured_content or {}).get("archivedAt") == archived["archivedAt"], f"read archived: {dump(read)}")
            stale = await call("update_document", {**update, "revision": 1, "idempotencyKey": f"{key}-archived"})
            expect(stale.is_error is True and stale.structured_content == {"code": "document-archived"}, dump(stale))
            return f"at {archived['archivedAt']}"

        await check(f"{label} archive_document", archive)

        async def restore():
            result = await call("restore_document", {"id": doc["id"]})
            expect(not result.is_error, dump(result))
            expect(result.structured_content == {"id": doc["id"], "title": "Renamed through MCP"}, dump(result))
            expect(doc["id"] in await listed(), "not listed again")
            read = await call("read_document", {"id": doc["id"]})
            expect(read.structured_content["source"] == revised["source"], dump(read))
            return "listed and readable again"

        await check(f"{label} restore_document", restore)

        async def forbidden():
            result = await call("list_documents", {"repository": denied})
            expect(result.is_error is True, dump(result))
            expect(result.structured_content == {"code": "repository-forbidden"}, dump(result))
            return denied

        await check(f"{label} list_documents (repository-forbidden)", forbidden)


async def main():
    if len(sys.argv) != 5:
        print("usage: python lifecycle.py URL TOKEN REPOSITORY DENIED_REPOSITORY", file=sys.stderr)
        return 2
    url, token, repository, denied = sys.argv[1:]
    for mode in ("legacy", MODERN):
        try:
            await run_mode(url, token, repository, denied, mode)
        except Exception as error:  # noqa: BLE001 - a failed connect is one more failure
            checks.failures += 1
            print(f"FAIL [{mode}] connect: {checks.describe(error)}", flush=True)
    verdict = "all checks passed" if checks.failures == 0 else f"{checks.failures} checks failed"
    print(f"python lifecycle: {verdict}")
    return 0 if checks.failures == 0 else 1


if __name__ == "__main__":
    checks.run(main)
