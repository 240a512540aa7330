// swiss-army (workflows/swiss-army/guide.md): the workflow's one entry, listed in workflows/registry.ts.
import { builtIn } from "../../lib/machines/built-in";
import { swissArmy } from "./machine";
import { swissArmyEffects } from "./effects";
import { swissConfigFromEnv } from "./config";
import { swissOutputs } from "./outputs";
import { swissServices } from "./services";

export default builtIn({
  definition: swissArmy,
  order: 1,
  services: swissServices,
  effects: (p, s) => swissArmyEffects({ cm: s.cm, documents: p.documents }),
  defaults: (env) => ({ config: swissConfigFromEnv(env) }),
  views: () => import("./views"),
  panel: () => import("./panel"),
  settings: () => import("./panel"),
  outputs: swissOutputs,
});
