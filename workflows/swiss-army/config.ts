import type { SwissConfig } from "./types";

function intEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer (milliseconds); got "${v}"`);
  return n;
}

/** Timeout settings from the environment (5 s search and 10 min execution limits: workflows/swiss-army/guide.md). */
export function swissConfigFromEnv(env: NodeJS.ProcessEnv): Partial<SwissConfig> {
  const out: Partial<SwissConfig> = {};
  const map: [keyof SwissConfig, string][] = [
    ["parseTimeoutMs", "SWITCHYARD_PARSE_TIMEOUT_MS"],
    ["searchTimeoutMs", "SWITCHYARD_SEARCH_TIMEOUT_MS"],
    ["executionTimeoutMs", "SWITCHYARD_EXECUTION_TIMEOUT_MS"],
    ["updateTimeoutMs", "SWITCHYARD_UPDATE_TIMEOUT_MS"],
    ["idleAnalysisMs", "SWITCHYARD_IDLE_ANALYSIS_MS"],
  ];
  for (const [key, name] of map) {
    const v = intEnv(env, name);
    if (v !== undefined) out[key] = v;
  }
  return out;
}
