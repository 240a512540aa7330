// Compile-time checks (tsc, not vitest): builtIn()'s `outputs` must match the machine's effects.
import { z } from "zod";
import { builtIn } from "../lib/machines/built-in";
import { deepResearch } from "../workflows/deep-research/machine";
import { researchOutputs } from "../workflows/deep-research/outputs";
import { swissArmy } from "../workflows/swiss-army/machine";
import { swissOutputs } from "../workflows/swiss-army/outputs";
import { domainAgent } from "../workflows/domain-agent/machine";
import { agentOutputs } from "../workflows/domain-agent/outputs";
import { processingModes } from "../workflows/processing-modes/machine";
import { modesOutputs } from "../workflows/processing-modes/outputs";

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
  // the other built-ins' schemas, and a wrong one for each
  builtIn({ definition: swissArmy, outputs: swissOutputs }),
  builtIn({ definition: domainAgent, outputs: agentOutputs }),
  builtIn({ definition: processingModes, outputs: modesOutputs }),
  // @ts-expect-error the schema's type is not the effect's output
  builtIn({ definition: swissArmy, outputs: { execute: swissOutputs.execute.extend({ tokens_used: z.string() }) } }),
  // @ts-expect-error the schema's type is not the effect's output
  builtIn({ definition: domainAgent, outputs: { plan: agentOutputs.plan.omit({ round: true }) } }),
  // @ts-expect-error the schema's type is not the effect's output
  builtIn({ definition: processingModes, outputs: { executeCode: modesOutputs.executeCode.extend({ returnValue: z.string() }) } }),
];
