// Runs imported from another Switchyard instance (POST /api/runs/import, lib/api/run-export.ts)
// are kept for viewing only. There is no schema column for that: their id carries the mark,
// and the engine never resumes, advances, aborts or decides them.

export const IMPORTED_PREFIX = "imported-";

export const isImportedRun = (runId: string): boolean => runId.startsWith(IMPORTED_PREFIX);

/**
 * SQL: the row's run (`column` holds its id) is not an imported one. An imported run keeps the
 * status it was exported with (its history), but nothing in it is live here: its pending reviews
 * are no one's to decide and a `running` or `waiting` one never moves. So pending reviews leave
 * them out (the review queue, its badge, the runs list's link to the review), and run counts
 * count them apart (`imported`, see RunStore.countByStatus; the `switchyard_runs` gauge's
 * status="imported"). substr, not LIKE: exact and case-sensitive on SQLite and PostgreSQL alike.
 */
export const notImported = (column: string): string => `substr(${column}, 1, ${IMPORTED_PREFIX.length}) <> '${IMPORTED_PREFIX}'`;
export const imported = (column: string): string => `substr(${column}, 1, ${IMPORTED_PREFIX.length}) = '${IMPORTED_PREFIX}'`;
