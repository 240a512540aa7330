// processing-modes (seed 004): the workflow's one entry, listed in workflows/registry.ts.
import { builtIn } from "../../lib/machines/built-in";
import type { EffectsOf } from "../../lib/machines/effects-of";
import { processingModes, processingModesMachine } from "../../lib/machines/processing-modes";
import { processingModesEffects } from "../../lib/effects/processing-modes";
import { modesConfigFromEnv } from "./config";

export default builtIn({
  definition: { ...processingModes, machine: processingModesMachine },
  order: 4,
  effects: (p) => processingModesEffects({ db: p.db, model: p.model, knowledge: p.knowledge, web: p.web }) as unknown as EffectsOf<typeof processingModesMachine>,
  defaults: (env) => ({ config: modesConfigFromEnv(env) }),
  views: () => import("./views"),
  panel: () => import("./panel"),
});
