export const CORE_SCHEMA: string;
export const SQLITE_SCHEMA: string;
export const POSTGRES_SCHEMA: string;
export const SQLITE_MIGRATIONS: string;
export const POSTGRES_MIGRATIONS: string;
/** a workflow's own models: workflows/<id>/schema.prisma */
export const WORKFLOW_SCHEMA: string;
/** The workflows with models of their own: [{ id, file }] (file relative to root), by id. */
export function workflowSchemas(root?: string): { id: string; file: string }[];
/** The text of prisma/schema.prisma: the core's file (without its opening comment) and each workflow's models. */
export function assembleSqliteSchema(root?: string): string;
/** The text of prisma/postgres/schema.prisma, from the SQLite schema's. */
export function derivePostgresSchema(sqlite: string): string;
export function writeSqliteSchema(root?: string): void;
export function writePostgresSchema(root?: string): void;
/** Both schema files, in order. */
export function writeSchemas(root?: string): void;
