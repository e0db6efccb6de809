// The ESM entry: the same module as index.cjs (one addon, one state), with
// named exports.
import chopin from "./index.cjs";

export const { handler, Endpoint, TOOLS, tools, scoped, UNAVAILABLE, KEEP_ALIVE, rules, prepareUpdate } =
  chopin;
