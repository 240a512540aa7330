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

/** null: no runtime serves requests in this process yet */
export function requestAccounts(): Promise<RequestAccounts> | null {
  return (globalThis as Holder)[KEY] ?? null;
}
