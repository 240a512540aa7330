// Runs imported from another Switchyard instance (POST /api/runs/import, lib/api/run-export.ts)
// are kept for viewing only. There is no schema column for that: their id carries the mark,
// and the engine never resumes, advances, aborts or decides them.

export const IMPORTED_PREFIX = "imported-";

export const isImportedRun = (runId: string): boolean => runId.startsWith(IMPORTED_PREFIX);
