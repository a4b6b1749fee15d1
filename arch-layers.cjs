/**
 * The layer order of src/ (docs/ARCHITECTURE.md "Layers"), top to bottom: a folder (or top-level file) may import
 * only from layers below its own, never from one above nor from another folder of its own layer. Read by
 * `.dependency-cruiser.cjs` (`npm run arch`) and by test/architecture.test.ts (its own folder graph), so the two
 * checks share one order. A new folder under src/ goes into this list (the test fails until it does).
 */
const LAYERS = [
  ["cli"], // one thin file per command; nothing imports it
  ["index"], // src/index.ts, the library's public API
  ["view"],
  ["report"],
  ["compare", "estimate"],
  ["sample"],
  ["committee"],
  ["agree"],
  ["run"],
  ["judges"],
  ["verdict"],
  ["evidence"],
  ["serialize"],
  ["ingest"],
  ["providers"],
  ["store"],
  ["config"],
  ["rubric"],
  ["format"],
  ["stats"],
  ["io"],
  ["errors", "types"],
];

module.exports = { LAYERS };
