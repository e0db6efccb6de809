"""Interop check: a whole implementation run (IMPLEMENTATION.md) through the
official MCP Python SDK client (mcp==2.3.0, pinned by requirements.txt), in
both protocol eras, one document each: mode="legacy" (the initialize
handshake; a run records the ULID of the winner's session id) and
mode="2026-07-28" (no sessions; the run id stands in).

Two agents, each its own client (and session), race start_implementation:
one is started, the other answered {"state":"active","run":...} with the
winner's run. The winner starts, blocks and restarts a task, reports its
PR, completes it, meets a failed verification, completes it again, passes,
and reports every PR merged: read_implementation reads the run delivered.

    python implementation.py URL TOKEN REPOSITORY LEGACY_DOCUMENT MODERN_DOCUMENT

Each document must hold graph version 1 r1 on plan revision 2, approved,
with the tasks `foundation` and `delivery` (needing foundation), and no
run. Prints one line per check ("ok ..." or "FAIL ...") and exits non-zero
when any check fails.
"""

import asyncio
import json
import os
import re
import sys
import time
from contextlib import AsyncExitStack

import mcp_types as types
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

import client as checks
from client import MODERN, check, dump, expect

ULID = re.compile(r"^[0-7][0-9A-HJKMNP-TV-Z]{25}$")
SESSION = re.compile(r"^c1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.([0-7][0-9A-HJKMNP-TV-Z]{25})$")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
VERSION = "2.3.0"


class Agent:
    """One agent: its own client, and the session ids its server answered."""

    def __init__(self, url, token, mode, name):
        self.name = name
        self.sessions = []
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        http.event_hooks["response"].append(self._record)
        info = types.Implementation(name=name, version=VERSION)
        self.client = Client(streamable_http_client(url, http_client=http), mode=mode, client_info=info)

    async def _record(self, response):
        session = response.headers.get("mcp-session-id")
        if session and session not in self.sessions:
            self.sessions.append(session)

    async def answer(self, name, arguments, refused=False):
        """A call's structured answer; `refused` says whether it must be an error."""
        result = await self.client.call_tool(name, arguments)
        expect(bool(result.is_error) == refused, f"{name}: {dump(result)}")
        expect(json.loads(result.content[0].text) == result.structured_content, f"{name}: text and structuredContent differ")
        return result.structured_content


def pull_request(repository, n):
    return f"https://github.com/{repository}/pull/{n}"


def task(life, task_id):
    return next(t for t in life["activity"]["tasks"] if t["id"] == task_id)


async def run_mode(url, token, repository, document, mode):
    label = f"[{mode}]"
    key = f"python-implementation-{mode}-{os.getpid()}-{time.time_ns()}"
    claim = {
        "id": document,
        "planRevision": 2,
        "graphVersion": 1,
        "graphRevision": 1,
        "repository": repository,
        "branch": "tq/017",
        "commit": "deadbeef",
    }
    agents = [Agent(url, token, mode, f"chopin-python-agent-{who}") for who in ("alpha", "beta")]
    async with AsyncExitStack() as stack:
        for agent in agents:
            await stack.enter_async_context(agent.client)
        held = {"agent": agents[0], "run": None}

        async def report(name, fields, k, refused=False):
            arguments = {"id": document, "runId": held["run"]["id"], **fields, "idempotencyKey": f"{key}-{k}"}
            return await held["agent"].answer(name, arguments, refused)

        async def sessions():
            for agent in agents:
                if mode == "legacy":
                    expect(agent.client.session.initialize_result is not None, "no initialize result")
                    expect(len(agent.sessions) == 1 and SESSION.match(agent.sessions[0]), f"session ids {agent.sessions}")
                else:
                    expect(agent.client.protocol_version == MODERN, f"negotiated {agent.client.protocol_version}")
                    expect(agent.sessions == [], f"session ids {agent.sessions}")
            names = [tool.name for tool in (await agents[0].client.list_tools()).tools]
            expect("start_implementation" in names and "report_verification" in names, f"tools {names}")
            return ", ".join(agent.sessions[0] if agent.sessions else "no session" for agent in agents)

        await check(f"{label} two agents connected", sessions)

        async def read_approved():
            impl = await agents[0].answer("read_implementation", {"id": document})
            expect(impl["document"]["id"] == document, json.dumps(impl["document"]))
            expect(impl["repository"] == {"name": repository, "baseBranch": "main", "baseCommit": "0123abcd"}, json.dumps(impl))
            graph = impl["graph"]
            expect([graph[k] for k in ("number", "revision", "planRevision", "state")] == [1, 1, 2, "approved"], json.dumps(graph))
            tasks = [[t["id"], t["dependsOn"]] for t in graph["definition"]["tasks"]]
            expect(tasks == [["foundation", []], ["delivery", ["foundation"]]], json.dumps(tasks))
            expect(impl["execution"] == {"state": "idle"} and impl["history"] == [] and "activity" not in impl, json.dumps(impl))
            return "graph 1 r1 p2 approved"

        await check(f"{label} read_implementation (approved, idle)", read_approved)

        async def race():
            claims = await asyncio.gather(*(agent.answer("start_implementation", claim) for agent in agents))
            states = [c["state"] for c in claims]
            expect(sorted(states) == ["active", "started"], f"states {states}")
            winner = states.index("started")
            agent, run = agents[winner], claims[winner]["run"]
            held.update(agent=agent, run=run)
            expect(claims[1 - winner]["run"] == run, f"the loser saw {claims[1 - winner]['run']}, not {run}")
            expect(ULID.match(run["id"]), f"run id {run['id']}")
            expect(run["client"] == {"name": agent.name, "version": VERSION}, f"client {run['client']}")
            session = SESSION.match(agent.sessions[0]).group(1) if mode == "legacy" else run["id"]
            expect(run["session"] == session, f"session {run['session']}, expected {session}")
            fields = [run[k] for k in ("user", "planRevision", "graphVersion", "graphRevision", "repository", "branch", "commit")]
            expect(fields == ["octocat", 2, 1, 1, repository, "tq/017", "deadbeef"], json.dumps(run))
            expect(TIMESTAMP.match(run["startedAt"]), f"startedAt {run['startedAt']}")
            return f"{agent.name} won run {run['id']} (session {run['session']})"

        await check(f"{label} start_implementation, two agents racing (started, active with the winner's run)", race)

        async def read_active():
            impl = await held["agent"].answer("read_implementation", {"id": document})
            expect(impl["graph"]["state"] == "locked", json.dumps(impl["graph"]))
            expect(impl["execution"] == {"state": "active", "run": held["run"]}, json.dumps(impl["execution"]))
            queued = {"tasks": [{"id": "foundation", "state": "queued"}, {"id": "delivery", "state": "queued"}], "events": []}
            expect(impl["activity"] == queued, json.dumps(impl["activity"]))
            return "both tasks queued"

        await check(f"{label} read_implementation (locked, active, the run)", read_active)

        async def dependency():
            refused = await report("start_task", {"taskId": "delivery"}, "early", refused=True)
            expect(refused == {"code": "dependency"}, json.dumps(refused))
            return refused["code"]

        await check(f"{label} start_task delivery (dependency)", dependency)

        async def start():
            life = await report("start_task", {"taskId": "foundation"}, "s1")
            expect(life["execution"] == {"state": "active"} and life["history"] == [], json.dumps(life))
            tasks = [{"id": "foundation", "state": "in_progress"}, {"id": "delivery", "state": "queued"}]
            expect(life["activity"]["tasks"] == tasks, json.dumps(life["activity"]))
            event = {"kind": "start_task", "idempotencyKey": f"{key}-s1", "taskId": "foundation"}
            expect(life["activity"]["events"] == [event], json.dumps(life["activity"]["events"]))
            again = await report("start_task", {"taskId": "foundation"}, "s1")
            expect(again == life, f"the retry answered {json.dumps(again)}")
            return "one event"

        await check(f"{label} start_task foundation (in_progress), its retry replayed", start)

        async def block():
            life = await report("block_task", {"taskId": "foundation", "reason": "Waiting on CI."}, "b1")
            expected = {"id": "foundation", "state": "blocked", "blocker": "Waiting on CI."}
            expect(task(life, "foundation") == expected, json.dumps(life["activity"]))
            return "blocked"

        await check(f"{label} block_task foundation (blocked, with its blocker)", block)

        async def restart():
            life = await report("start_task", {"taskId": "foundation"}, "s2")
            expect(task(life, "foundation") == {"id": "foundation", "state": "in_progress"}, json.dumps(life["activity"]))
            return "in_progress"

        await check(f"{label} start_task foundation again (in_progress)", restart)

        async def open_pr():
            life = await report("report_pr", {"taskId": "foundation", "url": pull_request(repository, 1), "state": "open"}, "p1")
            expect(task(life, "foundation")["pullRequest"] == {"url": pull_request(repository, 1), "state": "open"}, json.dumps(life["activity"]))
            return pull_request(repository, 1)

        await check(f"{label} report_pr foundation (open)", open_pr)

        async def complete():
            life = await report("complete_task", {"taskId": "foundation", "summary": "Laid the foundation."}, "c1")
            expected = {
                "id": "foundation",
                "state": "completed",
                "summary": "Laid the foundation.",
                "pullRequest": {"url": pull_request(repository, 1), "state": "open"},
            }
            expect(task(life, "foundation") == expected, json.dumps(life["activity"]))
            return "completed"

        await check(f"{label} complete_task foundation (completed, with its summary)", complete)

        async def delivery():
            await report("start_task", {"taskId": "delivery"}, "s3")
            await report("report_pr", {"taskId": "delivery", "url": pull_request(repository, 2), "state": "open"}, "p2")
            life = await report("complete_task", {"taskId": "delivery", "summary": "Shipped it."}, "c2")
            expect(all(t["state"] == "completed" for t in life["activity"]["tasks"]), json.dumps(life["activity"]))
            return "every task completed"

        await check(f"{label} delivery started, its PR reported, completed", delivery)

        def verification(passed, k):
            fields = {
                "passed": passed,
                "summary": "Everything holds." if passed else "The foundation leaks.",
                "reviewerMethod": "Read the diffs and ran the tests.",
                "evidence": [
                    {"taskId": "foundation", "evidence": ["Tests pass."]},
                    {"taskId": "delivery", "evidence": ["Deployed to staging."]},
                ],
                "tasksNeedingWork": [] if passed else ["foundation"],
            }
            return report("report_verification", fields, k)

        async def failed():
            life = await verification(False, "v1")
            expect(life["execution"] == {"state": "active"}, json.dumps(life["execution"]))
            expected = {"id": "foundation", "state": "in_progress", "pullRequest": {"url": pull_request(repository, 1), "state": "open"}}
            expect(task(life, "foundation") == expected, json.dumps(life["activity"]))
            expect(task(life, "delivery")["state"] == "completed", json.dumps(life["activity"]))
            expect(life["activity"]["verification"]["passed"] is False, json.dumps(life["activity"]))
            return "active, foundation needs work"

        await check(f"{label} report_verification failed (foundation back in progress, PR kept)", failed)

        async def task_state():
            refused = await report("start_task", {"taskId": "foundation"}, "s4", refused=True)
            expect(refused == {"code": "task-state"}, json.dumps(refused))
            return refused["code"]

        await check(f"{label} start_task foundation while in progress (task-state)", task_state)

        async def complete_again():
            life = await report("complete_task", {"taskId": "foundation", "summary": "Sealed the leak."}, "c3")
            done = task(life, "foundation")
            expect(done["state"] == "completed" and done["summary"] == "Sealed the leak.", json.dumps(life["activity"]))
            return "completed"

        await check(f"{label} complete_task foundation again", complete_again)

        async def passed():
            life = await verification(True, "v2")
            expect(life["execution"] == {"state": "idle"} and "activity" not in life, json.dumps(life))
            expect(len(life["history"]) == 1 and life["history"][0]["run"] == held["run"], json.dumps(life["history"]))
            expect(life["history"][0]["outcome"] == {"kind": "implemented"}, json.dumps(life["history"][0]))
            progress = life["history"][0]["progress"]
            expect("events" not in progress and progress["verification"]["passed"] is True, json.dumps(progress))
            return "implemented"

        await check(f"{label} report_verification passed (idle, implemented)", passed)

        async def merged_one():
            life = await report("report_pr", {"taskId": "foundation", "url": pull_request(repository, 1), "state": "merged"}, "m1")
            expect(life["history"][0]["outcome"] == {"kind": "implemented"}, json.dumps(life["history"][0]["outcome"]))
            return "implemented"

        await check(f"{label} report_pr merged, one PR of two (still implemented)", merged_one)

        async def merged_all():
            life = await report("report_pr", {"taskId": "delivery", "url": pull_request(repository, 2), "state": "merged"}, "m2")
            expect(life["history"][0]["outcome"] == {"kind": "delivered"}, json.dumps(life["history"][0]["outcome"]))
            return "delivered"

        await check(f"{label} report_pr merged, the last PR (delivered)", merged_all)

        async def read_delivered():
            impl = await agents[0].answer("read_implementation", {"id": document})
            expect(impl["graph"]["state"] == "approved" and impl["execution"] == {"state": "idle"}, json.dumps(impl))
            history = impl["history"]
            expect(len(history) == 1 and history[0]["run"] == held["run"], json.dumps(history))
            expect(history[0]["outcome"] == {"kind": "delivered"}, json.dumps(history[0]["outcome"]))
            merged = [[t["id"], t["state"], t["pullRequest"]["state"]] for t in history[0]["progress"]["tasks"]]
            expect(merged == [["foundation", "completed", "merged"], ["delivery", "completed", "merged"]], json.dumps(merged))
            return "delivered"

        await check(f"{label} read_implementation (approved, idle, delivered)", read_delivered)

        async def verified():
            refused = await agents[1].answer("start_implementation", claim, refused=True)
            expect(refused == {"code": "already-verified"}, json.dumps(refused))
            return refused["code"]

        await check(f"{label} start_implementation after delivery (already-verified)", verified)


async def main():
    if len(sys.argv) != 6:
        print(
            "usage: python implementation.py URL TOKEN REPOSITORY LEGACY_DOCUMENT MODERN_DOCUMENT",
            file=sys.stderr,
        )
        return 2
    url, token, repository, legacy, modern = sys.argv[1:]
    for mode, document in (("legacy", legacy), (MODERN, modern)):
        try:
            await run_mode(url, token, repository, document, mode)
        except Exception as error:  # noqa: BLE001 - a failed connect is one more failure
            checks.failures += 1
            print(f"FAIL [{mode}] connect: {checks.describe(error)}", flush=True)
    verdict = "all checks passed" if checks.failures == 0 else f"{checks.failures} checks failed"
    print(f"python implementation: {verdict}")
    return 0 if checks.failures == 0 else 1


if __name__ == "__main__":
    checks.run(main)
