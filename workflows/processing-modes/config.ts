/** processing-modes settings from the environment: the seed's system1.enable_cache and the cache TTL. */
export function modesConfigFromEnv(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const flag = env.SWITCHYARD_SYSTEM1_CACHE?.trim().toLowerCase();
  if (flag) {
    if (!["on", "off", "1", "0", "true", "false"].includes(flag)) throw new Error(`SWITCHYARD_SYSTEM1_CACHE must be on or off; got "${env.SWITCHYARD_SYSTEM1_CACHE}"`);
    out.enableCache = ["on", "1", "true"].includes(flag);
  }
  const ttl = env.SWITCHYARD_CACHE_TTL_S?.trim();
  if (ttl) {
    const n = Number(ttl);
    if (!Number.isInteger(n) || n < 0) throw new Error(`SWITCHYARD_CACHE_TTL_S must be a whole number of seconds; got "${ttl}"`);
    out.cacheTtlMs = n * 1000;
  }
  return out;
}
