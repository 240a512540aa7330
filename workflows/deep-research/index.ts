// deep-research (workflows/deep-research/guide.md): the workflow's one entry, listed in workflows/registry.ts.
import { builtIn } from "../../lib/machines/built-in";
import { deepResearch } from "./machine";
import { deepResearchEffects } from "./effects";
import { missionsOn } from "./missions";
import { researchOutputs } from "./outputs";

export default builtIn({
  definition: deepResearch,
  order: 2,
  effects: (p) => deepResearchEffects({ knowledge: p.knowledge, web: p.web, missionsOn: (day) => missionsOn(p.db, day) }),
  views: () => import("./views"),
  outputs: researchOutputs,
});
