// swiss-army (seed 001): the workflow's one entry, listed in workflows/registry.ts.
import { builtIn } from "../../lib/machines/built-in";
import type { EffectsOf } from "../../lib/machines/effects-of";
import { swissArmy, swissArmyMachine } from "../../lib/machines/swiss-army";
import { swissArmyEffects } from "../../lib/effects/swiss-army";
import { swissConfigFromEnv } from "./config";

export default builtIn({
  definition: { ...swissArmy, machine: swissArmyMachine },
  order: 1,
  effects: (p) => swissArmyEffects({ cm: p.cm, model: p.model, documents: p.documents }) as unknown as EffectsOf<typeof swissArmyMachine>,
  defaults: (env) => ({ config: swissConfigFromEnv(env) }),
  views: () => import("./views"),
  panel: () => import("./panel"),
});
