// Compile-time checks (tsc, not vitest): builtIn()'s `outputs` must match the machine's effects
// (on the loop fixture; each workflow checks its own in workflows/<id>/test/outputs.types.ts).
import { z } from "zod";
import { builtIn } from "../lib/machines/built-in";
import { loopOutputs } from "./fixtures/workflows/loop/effects";
import { loop } from "./fixtures/workflows/loop/machine";

export const checks = [
  builtIn({ definition: loop, outputs: loopOutputs }),
  // a schema that lets an output through without a field is not the effect's output type
  // @ts-expect-error the schema's type is not the effect's output
  builtIn({ definition: loop, outputs: { work: loopOutputs.work.omit({ tokens: true }) } }),
  // a schema whose field has another type
  // @ts-expect-error the schema's type is not the effect's output
  builtIn({ definition: loop, outputs: { work: loopOutputs.work.extend({ tokens: z.string() }) } }),
  // an effect the machine does not name
  // @ts-expect-error no such effect
  builtIn({ definition: loop, outputs: { nope: z.object({}) } }),
];
