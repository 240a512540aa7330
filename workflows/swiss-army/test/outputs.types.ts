// Compile-time checks (tsc, not vitest): builtIn()'s `outputs` must match swiss-army's effects.
import { z } from "zod";
import { builtIn } from "../../../lib/machines/built-in";
import { swissArmy } from "../machine";
import { swissOutputs } from "../outputs";

export const checks = [
  builtIn({ definition: swissArmy, outputs: swissOutputs }),
  // @ts-expect-error the schema's type is not the effect's output
  builtIn({ definition: swissArmy, outputs: { execute: swissOutputs.execute.extend({ tokens_used: z.string() }) } }),
];
