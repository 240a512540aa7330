// Compile-time checks (tsc, not vitest): builtIn()'s `outputs` must match domain-agent's effects.
import { z } from "zod";
import { builtIn } from "../../../lib/machines/built-in";
import { domainAgent } from "../machine";
import { agentOutputs } from "../outputs";

export const checks = [
  builtIn({ definition: domainAgent, outputs: agentOutputs }),
  // @ts-expect-error the schema's type is not the effect's output
  builtIn({ definition: domainAgent, outputs: { plan: agentOutputs.plan.omit({ round: true }) } }),
];
