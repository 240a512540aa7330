/** Is clients/typescript/dist missing, or older than its src/? */
export function clientStale(): boolean;
/** Build @switchyard/client's dist/ (when stale, or `always`); true when it built. */
export function buildClient(opts?: { always?: boolean }): boolean;
