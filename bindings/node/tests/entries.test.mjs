// The package loads under Node and Bun from both entries, and they are one
// module: the CommonJS and ESM entries export the same values.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import * as esm from "chopin-mcp";

const require = createRequire(import.meta.url);

test("the ESM and CommonJS entries export the same module", () => {
  const cjs = require("chopin-mcp");
  const names = ["Endpoint", "KEEP_ALIVE", "TOOLS", "UNAVAILABLE", "handler", "prepareUpdate", "rules", "scoped", "tools"];
  assert.deepEqual(Object.keys(esm).sort(), names);
  for (const name of names) assert.equal(esm[name], cjs[name], name);
});

test("a missing addon is an error that says how to build it", async () => {
  // index.cjs names the file it wants; a copy of the package without it fails with that advice.
  const { mkdtempSync, copyFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const folder = mkdtempSync(join(tmpdir(), "chopin-mcp-"));
  try {
    copyFileSync(new URL("../index.cjs", import.meta.url), join(folder, "index.cjs"));
    assert.throws(() => require(join(folder, "index.cjs")), /native addon chopin-mcp\..*\.node is not built; run `npm run build`/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
