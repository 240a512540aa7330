// Compile-time checks (tsc, not vitest): builtIn()'s `outputs` must match processing-modes's effects.
import { z } from "zod";
import { builtIn } from "../../../lib/machines/built-in";
import { processingModes } from "../machine";
import { modesOutputs } from "../outputs";

export const checks = [
  builtIn({ definition: processingModes, outputs: modesOutputs }),
  // @ts-expect-error the schema's type is not the effect's output
  builtIn({ definition: processingModes, outputs: { executeCode: modesOutputs.executeCode.extend({ returnValue: z.string() }) } }),
];
