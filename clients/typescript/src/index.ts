// @switchyard/client, Switchyard's TypeScript client: `new Switchyard({ baseUrl, token? })`. See README.md.
export { Switchyard, type SwitchyardOptions, type RequestOptions, type TaskCallOptions, type TaskRef } from "./client.js";
export { SwitchyardError, TaskFailure, sleep } from "./errors.js";
export { work, type TaskContext, type TaskHandler, type WorkOptions, type WorkStats } from "./worker.js";
export type * from "./types.js";
