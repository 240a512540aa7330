// deep-research (seed 002): the workflow's one entry, listed in workflows/registry.ts.
import { builtIn } from "../../lib/machines/built-in";
import type { EffectsOf } from "../../lib/machines/effects-of";
import { deepResearch, deepResearchMachine } from "../../lib/machines/deep-research";
import { deepResearchEffects } from "../../lib/effects/deep-research";
import { missionsOn } from "./missions";

export default builtIn({
  definition: { ...deepResearch, machine: deepResearchMachine },
  order: 2,
  effects: (p) => deepResearchEffects({ model: p.model, knowledge: p.knowledge, web: p.web, missionsOn: (day) => missionsOn(p.db, day) }) as unknown as EffectsOf<typeof deepResearchMachine>,
  views: () => import("./views"),
});
