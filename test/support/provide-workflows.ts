// Every test file runs with the built-in workflows provided to the core, as the server's
// instrumentation.ts and each script provide them (lib/machines/registry.ts provideWorkflows),
// and with the fixture workflows the engine's and the infrastructure's tests run on
// (test/fixtures/workflows): those tests do not depend on a product workflow's shape.
import { provideWorkflows } from "../../lib/machines/registry";
import * as workflows from "../../workflows/registry";
import * as fixtures from "../fixtures/workflows/registry";

provideWorkflows({ ...workflows, ...fixtures });
