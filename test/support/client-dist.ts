// vitest's global setup: @switchyard/client's dist/ (what `import "@switchyard/client"` loads) is
// built when missing or older than its src/, so the client's tests run on the package as shipped.
import { buildClient } from "../../scripts/build-client.mjs";

export default function setup(): void {
  buildClient();
}
