// The accounts that sign this process's requests in: the process-wide runtime registers them when
// it is built (lib/runtime.ts getRuntime) and lib/api/http.ts asks them who sent a request. A port
// rather than an import, so that the HTTP layer does not import the runtime that is built on it.
// On globalThis under a registered symbol: Next.js may load this module once per server bundle.
import type { Principal } from "./accounts";

export interface RequestAccounts {
  fromRequest(headers: Headers): Promise<Principal | null>;
}

const KEY = Symbol.for("switchyard.request-accounts");
type Holder = { [KEY]?: Promise<RequestAccounts> };

export function serveRequestAccounts(accounts: Promise<RequestAccounts> | null): void {
  if (accounts) (globalThis as Holder)[KEY] = accounts;
  else delete (globalThis as Holder)[KEY];
}

// the process-wide runtime's own slot (lib/runtime.ts getRuntime): a runtime placed there directly
// (an embedding host, or a test that builds its own) serves requests with its accounts too
const RUNTIME = Symbol.for("switchyard.runtime");
type RuntimeHolder = { [RUNTIME]?: Promise<{ accounts: RequestAccounts }> };

/** null: no runtime serves requests in this process yet */
export function requestAccounts(): Promise<RequestAccounts> | null {
  const placed = (globalThis as RuntimeHolder)[RUNTIME];
  return (globalThis as Holder)[KEY] ?? placed?.then((rt) => rt.accounts) ?? null;
}
