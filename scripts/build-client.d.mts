/** Is clients/typescript/dist missing, or older than its src/? */
export function clientStale(): boolean;
/** Build @switchyard/client's dist/ (when stale, or `always`); true when it built. */
export function buildClient(opts?: { always?: boolean }): boolean;
/** node_modules/.bin/switchyard → the built CLI (npm skips it when dist/ is not built yet at install). */
export function linkBin(): void;
