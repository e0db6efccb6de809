"""Interop check: invoke_planner through the official MCP Python SDK client
(mcp==2.3.0, pinned by requirements.txt), in both protocol eras:
mode="legacy" (the initialize handshake) and mode="2026-07-28". The client
validates a successful result's structuredContent against the tool's output
schema and must read an error result without raising. The server must run
with --planner-command (server_interop_planner.rs gives it a script that
records each turn's stdin and environment).

    python planner.py URL TOKEN DOCUMENT_ID INSTRUCTION

Each era sends INSTRUCTION followed by " [MODE]", with the checkout
/tmp/chopin-checkout; an unknown document and a relative checkout (-32602 in
the handshake era; on 2026-07-28 an error result with that message) start no
turn. Prints one line per check ("ok ..." or "FAIL ...") and exits non-zero
when any check fails.
"""

import sys

import client as checks
from client import MODERN, check, client_for, dump, expect

REFUSED = "invoke_planner requires an id or URL, instruction, and optional absolute checkout"


async def run_mode(url, token, document_id, instruction, mode):
    label = f"[{mode}]"
    async with client_for(url, token, mode) as client:

        async def listed():
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            expect("invoke_planner" in tools, f"tools {list(tools)}")
            expect(tools["invoke_planner"].input_schema["required"] == ["id", "instruction"], "required")
            expect(len(tools["invoke_planner"].output_schema["oneOf"]) == 2, "outputSchema")
            return client.protocol_version

        await check(f"{label} invoke_planner listed with its schemas", listed)

        async def invoked():
            arguments = {"id": document_id, "instruction": f"{instruction} {label}", "checkout": "/tmp/chopin-checkout"}
            result = await client.call_tool("invoke_planner", arguments)
            expect(not result.is_error, dump(result))
            answer = result.structured_content
            expect(answer["id"] == document_id and answer["url"] == f"/documents/{document_id}", dump(result))
            expect(isinstance(answer["title"], str) and answer["title"], dump(result))
            return f"{answer['title']} at {answer['url']}"

        await check(f"{label} invoke_planner answers the document at once", invoked)

        async def unavailable():
            result = await client.call_tool("invoke_planner", {"id": "no-such-document", "instruction": instruction})
            expect(result.is_error is True, dump(result))
            expect(result.structured_content == {"code": "document-unavailable"}, dump(result))
            return result.structured_content["code"]

        await check(f"{label} an unknown document read as an error result", unavailable)

        async def relative():
            arguments = {"id": document_id, "instruction": instruction, "checkout": "relative/path"}
            if mode == MODERN:
                # On 2026-07-28 an argument failure is a tool execution error
                # carrying the -32602 message (MODERN.md section 4).
                result = await client.call_tool("invoke_planner", arguments)
                expect(result.is_error is True and result.structured_content is None, dump(result))
                text = "".join(part.text for part in result.content)
                expect(text == REFUSED, dump(result))
                return f"error result: {text}"
            try:
                result = await client.call_tool("invoke_planner", arguments)
            except Exception as error:  # noqa: BLE001 - the refusal's shape is what is checked
                code = getattr(getattr(error, "error", None), "code", None)
                expect(code == -32602, f"{type(error).__name__}: {error}")
                expect(str(error) == REFUSED, str(error))
                return f"{code} {error}"
            raise AssertionError(f"not refused: {dump(result)}")

        await check(f"{label} a relative checkout refused (-32602, or its message as an error result)", relative)

        async def still():
            names = [tool.name for tool in (await client.list_tools()).tools]
            expect("invoke_planner" in names, f"tools {names}")
            return client.protocol_version

        await check(f"{label} the session still answers after the refusal", still)


async def main():
    if len(sys.argv) != 5:
        print("usage: python planner.py URL TOKEN DOCUMENT_ID INSTRUCTION", file=sys.stderr)
        return 2
    url, token, document_id, instruction = sys.argv[1:]
    for mode in ("legacy", MODERN):
        try:
            await run_mode(url, token, document_id, instruction, mode)
        except Exception as error:  # noqa: BLE001 - a failed connect is one more failure
            checks.failures += 1
            print(f"FAIL [{mode}] connect: {checks.describe(error)}", flush=True)
    verdict = "all checks passed" if checks.failures == 0 else f"{checks.failures} checks failed"
    print(f"python planner: {verdict}")
    return 0 if checks.failures == 0 else 1


if __name__ == "__main__":
    checks.run(main)
