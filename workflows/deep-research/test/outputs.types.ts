// Compile-time checks (tsc, not vitest): builtIn()'s `outputs` must match deep-research's effects.
import { z } from "zod";
import { builtIn } from "../../../lib/machines/built-in";
import { deepResearch } from "../machine";
import { researchOutputs } from "../outputs";

const { taskId: _taskId, ...rest } = researchOutputs.researchTask.shape;
void _taskId;

export const checks = [
  builtIn({ definition: deepResearch, outputs: researchOutputs }),
  // a schema that lets an output through without taskId is not the sub-agent's output type
  // @ts-expect-error the schema's type is not the effect's output
  builtIn({ definition: deepResearch, outputs: { researchTask: z.object(rest) } }),
  // a schema whose field has another type
  // @ts-expect-error the schema's type is not the effect's output
  builtIn({ definition: deepResearch, outputs: { researchTask: researchOutputs.researchTask.extend({ attempt: z.string() }) } }),
  // an effect the machine does not name
  // @ts-expect-error no such effect
  builtIn({ definition: deepResearch, outputs: { nope: z.object({}) } }),
];
