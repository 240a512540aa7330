// processing-modes (workflows/processing-modes/guide.md): the workflow's one entry, listed in workflows/registry.ts.
import { builtIn } from "../../lib/machines/built-in";
import { processingModes } from "./machine";
import { processingModesEffects } from "./effects";
import { modesConfigFromEnv } from "./config";
import { modesMetricsApi } from "./api";
import { modesOutputs } from "./outputs";

export default builtIn({
  definition: processingModes,
  order: 4,
  effects: (p) => processingModesEffects({ db: p.db, knowledge: p.knowledge, web: p.web }),
  defaults: (env) => ({ config: modesConfigFromEnv(env) }),
  views: () => import("./views"),
  panel: () => import("./panel"),
  api: { "metrics/modes": modesMetricsApi },
  outputs: modesOutputs,
});
