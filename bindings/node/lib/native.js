"use strict";
// The addon, as the other rooms of lib/ call it. index.cjs loaded it first
// (and said how to build it when it was missing): this is the same module,
// from require's cache.

module.exports = require(`../chopin-mcp.${process.platform}-${process.arch}.node`);
