// domain-agent (workflows/domain-agent/guide.md): the workflow's one entry, listed in workflows/registry.ts.
import { builtIn } from "../../lib/machines/built-in";
import { domainAgent } from "./machine";
import { domainAgentEffects } from "./effects";
import { agentOutputs } from "./outputs";
import { logApi } from "./api";

export default builtIn({
  definition: domainAgent,
  order: 3,
  effects: (p) => domainAgentEffects({ db: p.db }),
  views: () => import("./views"),
  api: logApi,
  pages: { log: () => import("./log-page") },
  nav: [{ href: "/log", label: "Log", icon: "M4 5h16M4 10h16M4 15h10M4 20h7" }],
  outputs: agentOutputs,
});
