"""Interop check: upload_image through the official MCP Python SDK client
(mcp==2.3.0, pinned by requirements.txt), in both protocol eras:
mode="legacy" (the initialize handshake) and mode="2026-07-28". The client
validates a successful result's structuredContent against the tool's output
schema and must read an error result without raising; the image is then
fetched back from the path it answered, with the same token.

    python upload.py URL TOKEN DOCUMENT_ID

The token's caller must be able to write the document. Prints one line per
check ("ok ..." or "FAIL ...") and exits non-zero when any check fails.
"""

import base64
import re
import sys
import urllib.request

import client as checks
from client import MODERN, check, client_for, dump, expect

# A real PNG: one transparent pixel (IHDR, IDAT, IEND).
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
PATH = re.compile(r"^/images/[0-9a-f]{64}\.png$")


def fetch(url, path, token):
    """GET the path beside the MCP URL: (status, content type, body)."""
    base = url.rsplit("/mcp", 1)[0]
    request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.headers.get("content-type"), response.read()


async def run_mode(url, token, document_id, mode):
    label = f"[{mode}]"
    async with client_for(url, token, mode) as client:
        uploaded = {}

        async def listed():
            names = [tool.name for tool in (await client.list_tools()).tools]
            expect("upload_image" in names, f"tools {names}")
            return client.protocol_version

        await check(f"{label} upload_image listed", listed)

        async def upload():
            result = await client.call_tool("upload_image", {"id": document_id, "data": PNG, "mimeType": "image/png"})
            expect(not result.is_error, dump(result))
            path = result.structured_content["path"]
            expect(PATH.match(path) is not None, dump(result))
            expect(result.structured_content["markdown"] == f"![]({path})", dump(result))
            uploaded["path"] = path
            return path

        await check(f"{label} upload_image of a real PNG", upload)

        async def mismatch():
            result = await client.call_tool("upload_image", {"id": document_id, "data": PNG, "mimeType": "image/webp"})
            expect(result.is_error is True, dump(result))
            expect(result.structured_content == {"code": "signature-mismatch"}, dump(result))

        await check(f"{label} a signature mismatch read as an error result", mismatch)

        async def served():
            status, kind, body = fetch(url, uploaded["path"], token)
            expect(status == 200 and kind == "image/png", f"{status} {kind}")
            expect(body == base64.b64decode(PNG), f"{len(body)} bytes")
            return f"{len(body)} bytes"

        await check(f"{label} the path serves the bytes", served)


async def main():
    if len(sys.argv) != 4:
        print("usage: python upload.py URL TOKEN DOCUMENT_ID", file=sys.stderr)
        return 2
    url, token, document_id = sys.argv[1:]
    for mode in ("legacy", MODERN):
        try:
            await run_mode(url, token, document_id, mode)
        except Exception as error:  # noqa: BLE001 - a failed connect is one more failure
            checks.failures += 1
            print(f"FAIL [{mode}] connect: {checks.describe(error)}", flush=True)
    verdict = "all checks passed" if checks.failures == 0 else f"{checks.failures} checks failed"
    print(f"python upload: {verdict}")
    return 0 if checks.failures == 0 else 1


if __name__ == "__main__":
    checks.run(main)
