/**
 * dependency-cruiser rules for src/ (`npm run arch`): no circular import between files, and every import goes
 * down the layer order of `arch-layers.cjs` (docs/ARCHITECTURE.md), never up nor sideways between two folders
 * of one layer. Type-only imports count (tsPreCompilationDeps), as in test/architecture.test.ts.
 */
const { LAYERS } = require("./arch-layers.cjs");

/** `^src/(a|b)(/|\.ts$)`: the folders (or top-level files, e.g. `types` for src/types.ts) named. */
const under = (names) => `^src/(${names.join("|")})(/|\\.ts$)`;

const upward = [];
LAYERS.forEach((layer, i) => {
  for (const name of layer) {
    // every folder of this layer and above, except the folder itself
    const above = LAYERS.slice(0, i + 1).flat().filter((n) => n !== name);
    if (above.length === 0) continue;
    upward.push({
      name: `layer-${name}`,
      comment: `src/${name} imports only from the layers below it (arch-layers.cjs): ${above.join(", ")} are above it or beside it`,
      severity: "error",
      from: { path: under([name]) },
      to: { path: under(above) },
    });
  }
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "no import cycle between files of src/",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "unlayered",
      comment: "every folder of src/ has its place in arch-layers.cjs",
      severity: "error",
      from: { path: "^src/", pathNot: under(LAYERS.flat()) },
      to: {},
    },
    ...upward,
  ],
  options: {
    includeOnly: "^src/",
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"], extensions: [".ts", ".js"] },
  },
};
