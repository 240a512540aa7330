// domain-agent (workflows/domain-agent/guide.md): the workflow's one entry, listed in workflows/registry.ts.
import { builtIn } from "../../lib/machines/built-in";
import { domainAgent } from "./machine";
import { domainAgentEffects } from "./effects";
import { agentOutputs } from "./outputs";

export default builtIn({
  definition: domainAgent,
  order: 3,
  effects: (p) => domainAgentEffects({ db: p.db }),
  views: () => import("./views"),
  pages: { log: () => import("./log-page") },
  outputs: agentOutputs,
});
