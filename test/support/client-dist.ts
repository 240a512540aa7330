// vitest's global setup: @switchyard/client's dist/ (what `import "@switchyard/client"` loads) is
// built when missing or older than its src/, so the client's tests run on the package as shipped.
import { buildClient } from "../../scripts/build-client.mjs";

// (once per vitest process, whichever of its projects comes first)
const BUILT = Symbol.for("switchyard.test-client-dist");

export default function setup(): void {
  const g = globalThis as { [BUILT]?: true };
  if (g[BUILT]) return;
  buildClient();
  g[BUILT] = true;
}
