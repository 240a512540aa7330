// Every test file runs with the built-in workflows provided to the core, as the server's
// instrumentation.ts and each script provide them (lib/machines/registry.ts provideWorkflows).
import { provideWorkflows } from "../../lib/machines/registry";
import * as workflows from "../../workflows/registry";

provideWorkflows(workflows);
