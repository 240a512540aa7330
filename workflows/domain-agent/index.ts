// domain-agent (seed 000): the workflow's one entry, listed in workflows/registry.ts.
import { builtIn } from "../../lib/machines/built-in";
import type { EffectsOf } from "../../lib/machines/effects-of";
import { domainAgent, domainAgentMachine } from "../../lib/machines/domain-agent";
import { domainAgentEffects } from "../../lib/effects/domain-agent";

export default builtIn({
  definition: { ...domainAgent, machine: domainAgentMachine },
  order: 3,
  effects: (p) => domainAgentEffects({ db: p.db, model: p.model }) as unknown as EffectsOf<typeof domainAgentMachine>,
  views: () => import("./views"),
});
