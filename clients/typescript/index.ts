// Switchyard's TypeScript client: `new Switchyard({ baseUrl, token? })`. See README.md.
export { Switchyard, type SwitchyardOptions, type RequestOptions, type TaskCallOptions } from "./client.ts";
export { SwitchyardError, TaskFailure, sleep } from "./errors.ts";
export { work, type TaskContext, type TaskHandler, type WorkOptions, type WorkStats } from "./worker.ts";
export type * from "./types.ts";
